// The command line's grammar: every command of `legacy-gateway`, its options and their checks, and the exit code
// of a malformed line. Each command's work lives in its own module, loaded when the command runs. cli.ts is the
// process around it; a test about a command's output and exit code runs the command in the test's process here.
// Exit codes, the same for every command (docs/cli.md: exit codes): 0 fine, 1 a problem found (a failed check,
// replay differences, a listener that cannot be opened), 2 a usage or input error (unknown command or
// option, bad option value, unusable input file or mappings); replay adds 130 for an interrupted run.
import { readFileSync } from 'node:fs';
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { registerReplayCommand } from './replay.js';

/** The exit code of a malformed command line, for every command (commander's own default is 1). */
const USAGE_ERROR = 2;

/** The package's version, read from package.json (two levels above src/commands/ or dist/commands/) when the CLI runs. */
function packageVersion(): string {
  const data: unknown = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  const version = typeof data === 'object' && data !== null ? (data as { version?: unknown }).version : undefined;
  return typeof version === 'string' ? version : '0.0.0';
}

function portNumber(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) throw new InvalidArgumentError('a port number from 0 to 65535');
  return n;
}

/** The commands that run a server until a signal: the gateway, the sandbox alone. */
function addRunningCommands(program: Command): void {
  program
    .command('serve')
    .description('run the gateway; settings come from the environment (docs/configuration.md).\nWithout UPSTREAM_URL it serves from the embedded v1 sandbox.')
    .action(async () => {
      const { runServe } = await import('./serve.js');
      await runServe();
    });

  program
    .command('sandbox')
    .description('run the embedded v1 sandbox alone (demo data, demo keys) on its own port\n(exit 1 when the port cannot be opened)')
    .option('-p, --port <port>', 'port to listen on', portNumber, 8081)
    .option('-H, --host <host>', 'address to listen on', '127.0.0.1')
    .option('--rate-limit <calls>', 'calls per hour per key, URL and verb', (v) => {
      if (!/^\d+$/.test(v) || Number(v) < 1) throw new InvalidArgumentError('a whole number of 1 or more');
      return Number(v);
    }, 1000)
    .action(async (opts: { port: number; host: string; rateLimit: number }) => {
      const { runSandbox } = await import('./sandbox.js');
      await runSandbox(opts);
    });
}

/** The commands that read the mappings (and, for check, v1): coverage, openapi, check, routes. */
function addMappingCommands(program: Command): void {
  program
    .command('coverage')
    .description('print the legacy field coverage matrix (copied / renamed / derived / defaulted / missing), generated from the mappings\n(exit 2 when the mappings cannot be loaded)')
    .option('--json', 'machine-readable output')
    .option('--mappings <dir>', 'mappings directory (default: MAPPINGS_DIR or the shipped mappings/)')
    .action(async (opts: { json?: boolean; mappings?: string }) => {
      const { runCoverage } = await import('./coverage.js');
      await runCoverage(opts);
    });

  program
    .command('openapi')
    .description('print the OpenAPI 3.1 description of the legacy surface (paths, parameters, replies, payment form and codes), generated from the mappings\n(exit 2 when the mappings cannot be loaded)')
    .option('--yaml', 'YAML instead of JSON')
    .option('--mappings <dir>', 'mappings directory (default: MAPPINGS_DIR or the shipped mappings/)')
    .action(async (opts: { yaml?: boolean; mappings?: string }) => {
      const { runOpenApi } = await import('./openapi.js');
      await runOpenApi(opts);
    });

  program
    .command('check')
    .description('probe what the gateway depends on, in order: settings and mappings, upstream reachable, key accepted, account gates, and the key on every v1 resource the mappings use (one GET with limit=1 each)\n(reads UPSTREAM_URL, UPSTREAM_API_KEY, MAPPINGS_DIR, UPSTREAM_TIMEOUT_MS; exit 1 when a check fails, or when no key was given to test)')
    .option('--json', 'machine-readable output')
    .option('--api-key <key>', "test this key (a caller's own) instead of UPSTREAM_API_KEY; it is never printed", (v: string) => {
      if (v.trim() === '') throw new InvalidArgumentError('a key, not an empty string');
      return v;
    })
    .option('--skip-upstream', 'check the settings and mappings only, without any v1 call (without it, no key to test is a failure)')
    .action(async (opts: { json?: boolean; apiKey?: string; skipUpstream?: boolean }) => {
      const { runCheck } = await import('./check.js');
      await runCheck(opts);
    });

  program
    .command('routes')
    .description('print the native front proxy\'s configuration (nginx or HAProxy), generated from the mappings: the mapped legacy methods, POST /api/payment, calls whose query may carry api_key, /healthz and /readyz go to the gateway, everything else straight to v1\n(exit 2 on a bad option or mappings that cannot be loaded)')
    .option('--format <nginx|haproxy>', 'the configuration to print (required)')
    .option('--listen <[addr:]port>', 'where the front listens', '8080')
    // No default value: commander would print it in the help ("(default: [])") as if one were given.
    .option('--gateway <url>', 'a gateway replica (required: repeat it, or separate URLs with commas)', (value: string, previous: string[] | undefined) => [...(previous ?? []), value])
    .option('--upstream <url>', "v1's base URL (default: UPSTREAM_URL)")
    .option('--tls-cert <path>', 'listen with TLS: the certificate file (with --tls-key)')
    .option('--tls-key <path>', 'listen with TLS: the private key file (with --tls-cert)')
    .option('--tls-protocols <list>', 'with TLS: the protocol versions offered, consecutive (e.g. TLSv1.1,TLSv1.2,TLSv1.3; TLSv1 and TLSv1.1 need --tls-ciphers with @SECLEVEL=0)')
    .option('--tls-ciphers <string>', 'with TLS: the OpenSSL cipher string (e.g. DEFAULT:@SECLEVEL=0 for TLS 1.0/1.1 clients; docs/old-tls-clients.md)')
    .option('--mappings <dir>', 'mappings directory (default: MAPPINGS_DIR or the shipped mappings/)')
    .option('--upstream-timeout-ms <ms>', 'the v1 timeout (default: UPSTREAM_TIMEOUT_MS or 10000)')
    .action(async (opts: { format?: string; listen: string; gateway?: string[]; upstream?: string; tlsCert?: string; tlsKey?: string; tlsProtocols?: string; tlsCiphers?: string; mappings?: string; upstreamTimeoutMs?: string }) => {
      const { runRoutes } = await import('./routes.js');
      await runRoutes(opts);
    });
}

/** The commands that read a gateway's metrics listener: usage, migration-guide, payments. */
function addListenerCommands(program: Command): void {
  program
    .command('usage')
    .description('who still calls the old API: the legacy calls per API key fingerprint, from a gateway\'s GET /usage on its metrics listener (METRICS_PORT), most recently seen first (docs/usage.md)\n(exit 1 when it cannot be fetched)')
    .option('--url <url>', 'the metrics listener, e.g. http://127.0.0.1:9464 (or its /metrics or /usage URL)')
    .option('--json', 'print the JSON reply')
    .option('--fingerprint-of <key>', 'the fingerprint of an API key under GATEWAY_SECRET (- reads the key from stdin); with --url, only its row')
    .option('--html <file>', 'write one self-contained HTML page instead: each integration with its calls per day (90 days), methods, call shapes, error rate, brownouts and guide link')
    .option('--brownouts <file>', 'with --html: a brownouts file; each integration shows the windows that would refuse it')
    .option('--guides-url <url>', 'with --html: the base URL of the published guides (default: the file names migration-guide --all --format html writes, relative to the page)')
    .option('--mappings <dir>', 'with --brownouts: mappings directory, for the methods a window names (default: MAPPINGS_DIR or the shipped mappings/)')
    .action(async (opts: { url?: string; json?: boolean; fingerprintOf?: string; html?: string; brownouts?: string; guidesUrl?: string; mappings?: string }) => {
      const { runUsage } = await import('./usage.js');
      await runUsage(opts);
    });

  program
    .command('migration-guide')
    .description('write the migration guide, generated from the mappings: for each legacy method, the v1 request(s) that replace it, every field with its v1 source and conversion, example calls; for a list of methods (offline) or for the methods and call shapes one integration uses (from a gateway\'s GET /usage)\n(exit 1 when the usage cannot be fetched or the integration is not in it; 2 on a bad option or mappings that cannot be loaded)')
    .option('--methods <list>', 'legacy methods, separated by commas (e.g. clients,payment)')
    .option('--integration <name>', 'the integration of that name in the usage report (needs --url)')
    .option('--fingerprint <fingerprint>', 'the integration with that API key fingerprint (needs --url)')
    .option('--all', 'one guide per integration in the usage report, written into --out DIR (needs --url)')
    .option('--url <url>', 'the metrics listener, e.g. http://127.0.0.1:9464 (or its /metrics or /usage URL)')
    .option('--format <md|html>', 'Markdown (default) or one self-contained HTML page', 'md')
    .option('--out <path>', 'the file to write (default: stdout); with --all, the directory')
    .option('--mappings <dir>', 'mappings directory (default: MAPPINGS_DIR or the shipped mappings/)')
    .option('--legacy-url <url>', 'the legacy API\'s base URL in the example calls (default https://legacy.example.com)')
    .option('--v1-url <url>', 'v1\'s base URL in the example calls (default: UPSTREAM_URL, else https://api.example.com)')
    .action(async (opts: { methods?: string; integration?: string; fingerprint?: string; all?: boolean; url?: string; format?: string; out?: string; mappings?: string; legacyUrl?: string; v1Url?: string }) => {
      const { runMigrationGuide } = await import('./migration-guide.js');
      await runMigrationGuide(opts);
    });

  program
    .command('payments')
    .description('payments whose outcome is unknown (the POST sent, its answer lost), from a gateway\'s metrics listener (METRICS_PORT): list them, or settle one by hand after looking at v1\'s payments list (docs/payments.md)\n(exit 1 when the gateway cannot be reached or refuses; 2 on a bad option)')
    .addCommand(
      new Command('unknown')
        .exitOverride()
        .showHelpAfterError()
        .description('list the payments whose outcome is unknown: claim, when sent, age, amount, client, caller (API key fingerprint)')
        .option('--url <url>', 'the metrics listener, e.g. http://127.0.0.1:9464')
        .option('--json', 'print the JSON reply')
        .action(async (opts: { url?: string; json?: boolean }) => {
          const { runPaymentsUnknown } = await import('./payments.js');
          await runPaymentsUnknown(opts);
        }),
    )
    .addCommand(
      new Command('settle')
        .exitOverride()
        .showHelpAfterError()
        .description('settle one claim (as payments unknown lists it): --paid <v1 payment id> answers its repeats code 12 with that id; --not-paid releases it, so its next repeat pays')
        .argument('<claim>', 'the claim, as payments unknown lists it')
        .option('--paid <id>', 'v1\'s payments list holds it, with this id')
        .option('--not-paid', 'v1\'s payments list does not hold it')
        .option('--url <url>', 'the metrics listener, e.g. http://127.0.0.1:9464')
        .action(async (claim: string, opts: { url?: string; paid?: string; notPaid?: boolean }) => {
          const { runPaymentsSettle } = await import('./payments.js');
          await runPaymentsSettle(claim, opts);
        }),
    );
}

/** The commands that judge the retirement from a gateway's usage: retire-check, brownout, notices. */
function addRetirementCommands(program: Command): void {
  program
    .command('retire-check')
    .description('may the gateway be switched off? From a gateway\'s GET /usage: exit 0 when no integration called the old API in the last --quiet-days days, else 1 with those that did (name or fingerprint, last call, calls) (docs/usage.md)\n(exit 2 on a bad option or when the usage cannot be read)')
    .option('--url <url>', 'the metrics listener, e.g. http://127.0.0.1:9464 (or its /metrics or /usage URL)')
    .option('--quiet-days <days>', 'days without a call that make an integration quiet (default: QUIET_DAYS, else 30)')
    .option('--json', 'print the result as JSON')
    .action(async (opts: { url?: string; quietDays?: string; json?: boolean }) => {
      const { runRetireCheck } = await import('./retire-check.js');
      await runRetireCheck(opts);
    });

  program
    .command('brownout')
    .description('before a brownouts file goes into service (BROWNOUTS_FILE): for each window, its openings to come, whom it refuses and, with --url, which integrations of a gateway\'s GET /usage it would hit and how many of their calls, judged from the last 7 days (docs/usage.md)\n(exit 1 when the usage cannot be fetched; 2 on a bad option, file or mappings)')
    .option('--dry-run', 'tell what the file would do (required: the gateway applies the file itself)')
    .option('--file <path>', 'the brownouts file (default: BROWNOUTS_FILE)')
    .option('--url <url>', 'the metrics listener, e.g. http://127.0.0.1:9464 (or its /metrics or /usage URL); without it, the windows and their scope only')
    .option('--mappings <dir>', 'mappings directory, for the methods a window names (default: MAPPINGS_DIR or the shipped mappings/)')
    .action(async (opts: { dryRun?: boolean; file?: string; url?: string; mappings?: string }) => {
      const { runBrownout } = await import('./brownout.js');
      await runBrownout(opts);
    });

  program
    .command('notices')
    .description('which notices to the integrations\' owners are due now (sunset-call, brownout-upcoming, quiet), as a gateway decides them, from INTEGRATIONS_FILE, BROWNOUTS_FILE, LEGACY_SUNSET and, with --url, a gateway\'s GET /usage; sends nothing (docs/usage.md)\n(exit 1 when the usage cannot be fetched; 2 on a bad option or file)')
    .option('--dry-run', 'tell what would be sent (required: the gateway sends the notices itself)')
    .option('--url <url>', 'the metrics listener, e.g. http://127.0.0.1:9464 (or its /metrics or /usage URL)')
    .option('--integrations <path>', 'the integrations file (default: INTEGRATIONS_FILE)')
    .option('--brownouts <path>', 'the brownouts file (default: BROWNOUTS_FILE; unset: no window)')
    .option('--quiet-days <days>', 'days without a call before the quiet notice (default: QUIET_DAYS, else 30)')
    .option('--mappings <dir>', 'mappings directory, for the methods a window names (default: MAPPINGS_DIR or the shipped mappings/)')
    .option('--json', 'print each notice as it would be sent (its notify URL without query or credentials, its body)')
    .action(async (opts: { dryRun?: boolean; url?: string; integrations?: string; brownouts?: string; quietDays?: string; mappings?: string; json?: boolean }) => {
      const { runNotices } = await import('./notices.js');
      await runNotices(opts);
    });
}

/** A fresh program: every command, its options and their checks (commander keeps parsed values on it). */
export function createProgram(): Command {
  const program = new Command()
    .name('legacy-gateway')
    .description('Serves the retired unversioned API (/api/{method}) from the v1 REST API, in the old reply shape.')
    .version(packageVersion(), '-V, --version', 'print the version and exit')
    .showHelpAfterError()
    // Before any command is added: subcommands copy the setting. Commander then throws instead of exiting,
    // and the usage error's exit code is set by runCommandLine.
    .exitOverride()
    .addHelpText('after', '\nExit codes: 0 fine, 1 a problem found (a failed check, replay differences, a port that cannot be opened),\n2 a usage or input error (command line, input file, mappings); replay: 130 interrupted.');
  addRunningCommands(program);
  addMappingCommands(program);
  addListenerCommands(program);
  addRetirementCommands(program);
  registerReplayCommand(program);
  return program;
}

/** Parses `argv` (node's, the script's path included) and runs its command; the exit code is left in
 * process.exitCode, as each command leaves its own. */
export async function runCommandLine(argv: string[]): Promise<void> {
  try {
    await createProgram().parseAsync(argv);
  } catch (err) {
    if (!(err instanceof CommanderError)) throw err;
    // --help and --version exit 0; every complaint about the command line (already printed) exits 2.
    process.exitCode = err.exitCode === 0 ? 0 : USAGE_ERROR;
  }
}
