// `legacy-gateway replay <file> [options]` as the command line sees it: the options, their help and the
// exit code 2 for a malformed command line. The work (src/replay/run/run-command.ts) is loaded only when the
// command runs, so `serve` never loads the replay engine, its reports or the sandbox it may start.
import { Command, Option } from 'commander';
import { DEFAULT_HOURLY_BUDGET } from '../replay/run/budget.js';

/** Commander errors (unknown option, missing value...) of this command exit with 2, not commander's 1. */
class ReplayCommand extends Command {
  override error(message: string, errorOptions?: { code?: string; exitCode?: number }): never {
    return super.error(message, { ...errorOptions, exitCode: 2 });
  }
}

const HELP_AFTER = `
What it compares:
  Each recorded reply against the gateway's, field by field and type by type. Object key order is
  checked too (old integrations read fields by position; --no-check-key-order turns it off); array order
  is checked (--check-order, the default).
  Difference kinds: type ("1" vs 1), format (same value spelled differently: "45.5" vs "45.50",
  "09:00" vs "09:00:00", two spellings of a date), value, missing, extra, order, key-order, status.
  Default rules (replay-rules/default.yaml) make equal what the gateway makes new on every call (payment
  ids, new client ids, request ids); --rules adds to them, --no-default-rules leaves them out.
  Writes are sent in recorded order; a later read of what one wrote has its value, missing, extra and
  order differences marked "cause": "replay" and not counted. A call whose recording holds a password,
  token or key only as "[REDACTED]" is never sent: it is not comparable. Nor is a call the recording shows
  refused for its key (401, 403): the replay would send another key (--compare-key-refusals sends it).

Safety:
  Reads replay by default. Writes (POST, PUT, PATCH, DELETE) are skipped unless --include-writes.
  POST /api/payment is replayed only with --include-writes and a target that is the embedded sandbox or a
  loopback address, unless --allow-production-writes is also given. Recorded API keys are never reused:
  they are replaced by --api-key (or UPSTREAM_API_KEY). Keys, card tokens and passwords never appear in
  reports or output. Every call carries Legacy-Gateway-Replay: 1: the gateway neither records it
  (RECORD_FILE) nor counts it in GET /usage, so a gateway recording the file replayed does not grow it.

Mapping proposal (--propose-mappings <dir>):
  After the replay, the v1 records behind every call that differs are read (from --upstream or the
  sandbox with the replay's key, or through --target's /api/v1 passthrough), and each differing record
  field is searched for in them under every spelling the mappings write (text, money, hhmm). A field whose
  recorded values are ALL written exactly by one v1 field becomes an edit (rename, format or default);
  anything less is listed as unexplained. <dir> (new or empty) receives a complete copy of the mappings
  (MAPPINGS_DIR, else the shipped ones, which are never touched) with the edits and their evidence as
  comments; replay again with MAPPINGS_DIR=<dir> to check them.

Shadow pairs (--shadow-pairs):
  The lines of the gateway's SHADOW_DIFF_FILE are reported without sending anything: the recorded reply
  is each line's response (what was served), the gateway's is its shadow.candidate (what the candidate
  mappings would have answered), the method its shadow.legacyMethod. No target, upstream or budget; a
  line without "shadow" is an input error (exit code 2).

Severities:
  Each differing entry has the highest severity of its differences: money (POST /api/payment whose legacy
  code or HTTP status differs), status, shape (type, missing, extra), value (value, format), order (order,
  key-order). The reports list the money entries first; --max-differences money=0,value=10 gates by them.

Exit codes:
  0    at most --max-differences entries differ (an entry that could not be replayed counts as differing;
       one that differs only because of the replay, or is not comparable, does not); with severities, at
       most that many of each severity named, and no call that failed unless a total is given too
  1    more entries differ
  2    usage error, or the recording or rules file is unusable (the message says what and where), or a
       report cannot be written
  130  interrupted (Ctrl-C / SIGINT, or SIGTERM) before every entry was replayed: the calls in flight
       finish and the reports cover the entries done, marked interrupted; a second signal removes the
       partial reports and quits at once

Examples:
  legacy-gateway replay traffic.har --html report.html
  legacy-gateway replay staging.jsonl --target http://127.0.0.1:8080 --api-key "$KEY" --json out.json
  legacy-gateway replay traffic.har --upstream https://api.example.com --rate 0.25/s --rules rules.yaml
  legacy-gateway replay traffic.har --upstream https://api.example.com --propose-mappings proposed/
  legacy-gateway replay shadow-diffs.jsonl --shadow-pairs --html shadow.html
`;

export function registerReplayCommand(program: Command): void {
  const cmd = new ReplayCommand('replay');
  cmd.copyInheritedSettings(program);
  cmd
    .description(
      'replay recorded legacy traffic (HAR or JSONL) through the gateway and report every difference, type by type',
    )
    .usage('<file> [options]')
    .argument('<file>', 'HAR 1.2 file or JSONL ({"request":{...},"response":{...}} per line); read streamed')
    .option('--target <url>', "a running gateway: the recorded URLs' scheme and host are replaced by it")
    .option('--upstream <url>', 'without --target, the v1 API the in-process gateway uses (default: the embedded sandbox)')
    .option('--api-key <key>', 'the API key to send (default: $UPSTREAM_API_KEY); recorded keys are replaced, never reused')
    .option('--json <file>', 'write the JSON report (summary and every entry)')
    .option('--html <file>', 'write a self-contained HTML report')
    .option(
      '--max-differences <n>',
      'exit 0 when at most this many entries differ, else 1 (default: 0); or per severity, e.g. money=0,value=10 (unnamed severities are not gated), or both: 20,money=0',
    )
    .option('--check-order', 'report a reordered list as an `order` difference', true)
    .option('--no-check-order', 'compare every list as unordered')
    .option('--no-check-key-order', "do not report an object's keys in another order (key-order)")
    .option('--rules <file>', 'YAML or JSON rules: ignored paths, unordered lists, numeric tolerance, patterns')
    .option('--no-default-rules', 'leave out the default rules (replay-rules/default.yaml)')
    .option('--concurrency <n>', 'calls in flight at once (default: 8)')
    .option('--rate <n/s>', 'at most this many calls per second (e.g. 10/s, 0.25/s)')
    .option('--budget <n>', `v1 calls allowed per hour per key, URL and verb, for the budget warning (default: ${DEFAULT_HOURLY_BUDGET})`)
    .option('--timeout <ms>', 'per-call timeout in milliseconds (default: 30000)')
    .addOption(new Option('--format <format>', 'recording format (default: by extension, then content)').choices(['har', 'jsonl']))
    .option('--include-writes', 'also replay writes (POST, PUT, PATCH, DELETE)')
    .option('--allow-production-writes', 'with --include-writes, replay payments against a target that is not the sandbox or loopback')
    .option('--all-paths', 'also replay calls outside /api/** and /ondemand/** (pages, assets)')
    .option('--compare-key-refusals', 'send the calls the recording shows refused for their key (401, 403) with the replay\'s key and compare them (default: not comparable)')
    .option('--shadow-pairs', "render the pairs of a SHADOW_DIFF_FILE (served reply against the candidate's) without sending anything")
    .option('--propose-mappings <dir>', 'read the v1 records behind each differing call and write to <dir> a copy of the mappings with the edits they prove')
    .addHelpText('after', HELP_AFTER)
    .action(async (file: string, raw: Record<string, unknown>) => {
      // The replay's engine, reports and in-process gateway load only when the command runs.
      const [{ runReplayCommand }, { replayGateway }] = await Promise.all([import('../replay/run/run-command.js'), import('./replay-gateway.js')]);
      process.exitCode = await runReplayCommand(file, raw, { stdout: process.stdout, stderr: process.stderr, env: process.env }, replayGateway);
    });
  program.addCommand(cmd);
}
