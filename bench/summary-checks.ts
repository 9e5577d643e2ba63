// The summary's figures, each beside its target with met or MISSED (or no target): the ratios between rows
// of this one run, the team listing's CPU per cold call and memory, the gateway's peak RSS on Node 20 and
// Node 26, and Node 26 beside Node 20. A figure whose rows were not run (--only) prints n/a.
import type { Measured } from './measure.js';
import { say, sayFigure } from './report-lines.js';
import type { TranslationFloor } from './translation-floor.js';
import * as names from './target-names.js';

export type Rows = (target: string) => Measured | undefined;

/** A figure's target: at least (ratios) or at most (milliseconds, megabytes). */
type Goal = { atLeast: number } | { atMost: number };

const UNIT = { x: 'x', ms: ' ms', MB: ' MB' } as const;

/** CPU per cold listing of a 10,000-member team, under load: its target. */
const COLD_TEAM_CPU_MS = 25;

function figure(name: string, value: number | undefined, unit: keyof typeof UNIT, goal?: Goal, note = ''): void {
  const shown = value === undefined || !Number.isFinite(value) ? 'n/a' : `${value.toFixed(unit === 'x' ? 2 : unit === 'ms' ? 1 : 0)}${UNIT[unit]}`;
  let verdict = '';
  if (goal && value !== undefined && Number.isFinite(value)) {
    const [sign, limit, met] = 'atLeast' in goal ? ['>=', goal.atLeast, value >= goal.atLeast] : ['<=', goal.atMost, value <= goal.atMost];
    verdict = `  (${sign} ${limit}${UNIT[unit]}: ${met ? 'met' : 'MISSED'})`;
  } else if (goal) {
    verdict = '  (not run)';
  }
  sayFigure(name, `${shown}${verdict}${note === '' ? '' : `  ${note}`}`);
}

function ratio(rows: Rows, a: string, b: string): number | undefined {
  const [x, y] = [rows(a), rows(b)];
  return x && y && y.rps > 0 ? x.rps / y.rps : undefined;
}

const cpuNote = (rows: Rows, a: string, b: string): string => {
  const us = (name: string) => rows(name)?.cpuUsPerRequest?.toFixed(0) ?? 'n/a';
  return `(CPU ${us(a)} vs ${us(b)} us/req)`;
};

/** The translated list read for real (a new key per request, the cache off) against the minimal reshaper. */
export function printUncachedRatios(rows: Rows): void {
  say('Translated list, a new API key per request and CACHE_TTL_MS=0 (every call reads v1 and reshapes):');
  for (const [records, goal] of [[10, 1.5], [100, 2], [1000, 2]] as const) {
    const [gw, base] = [names.translatedUncached(records), names.reshaper(records)];
    figure(`  translated ${records}, cache off / minimal reshaper ${records}`, ratio(rows, gw, base), 'x', { atLeast: goal }, cpuNote(rows, gw, base));
  }
}

/** `a`'s CPU per request over `b`'s, both rows of this run. */
function cpuRatio(rows: Rows, a: string, b: string): number | undefined {
  const [x, y] = [rows(a)?.cpuUsPerRequest, rows(b)?.cpuUsPerRequest];
  return x !== undefined && y !== undefined && y > 0 ? x / y : undefined;
}

/** Each side's CPU per request, then the req/s ratio: what the CPU ratio is read beside. */
const sameBytesNote = (rows: Rows, a: string, b: string): string => {
  const us = (name: string) => rows(name)?.cpuUsPerRequest?.toFixed(0) ?? 'n/a';
  const rps = ratio(rows, a, b);
  return `(CPU ${us(a)} vs ${us(b)} us/req; req/s ${rps === undefined ? 'n/a' : `${rps.toFixed(2)}x`})`;
};

/** The most CPU per request the gateway may spend against each same-bytes baseline, by record count. */
const SAME_BYTES_CPU_GOALS = [
  { records: 10, handwritten: 1, nginxLua: 2 },
  { records: 100, handwritten: 1, nginxLua: 1 },
  { records: 1000, handwritten: 1, nginxLua: 1 },
] as const;

/**
 * The same bytes (each baseline checked to answer the gateway's reply before it ran): the gateway with the
 * cache off against the hand-written node:http reshaper and the nginx + Lua reshaper, a new key per request.
 * The targets are on CPU per request, the gateway's over the baseline's: req/s on 2 shared cores is capped by
 * whatever else the machine runs, CPU per request is each side's own cost. The gateway on Node 26, when its
 * rows ran, is held to the same targets against the same baselines.
 */
export function printSameBytesRatios(rows: Rows, node26: string | undefined): void {
  say('Same bytes, a new API key per request, gateway cache off: CPU per request, gateway / baseline (each baseline checked byte for byte first):');
  const gateways: Array<[string, (name: string) => string]> = [[`Node ${process.version}`, (name) => name]];
  if (SAME_BYTES_CPU_GOALS.some(({ records }) => rows(names.onNode26(names.translatedUncached(records))))) gateways.push([`Node ${node26 ?? '26'}`, names.onNode26]);
  for (const [label, on] of gateways) {
    say(`  the gateway on ${label}:`);
    for (const goal of SAME_BYTES_CPU_GOALS) {
      const gw = on(names.translatedUncached(goal.records));
      const [hand, lua] = [names.handwritten(goal.records), names.nginxLua(goal.records)];
      figure(`    CPU gateway / hand-written node:http ${goal.records}`, cpuRatio(rows, gw, hand), 'x', { atMost: goal.handwritten }, sameBytesNote(rows, gw, hand));
      figure(`    CPU gateway / nginx+Lua ${goal.records}`, cpuRatio(rows, gw, lua), 'x', { atMost: goal.nginxLua }, sameBytesNote(rows, gw, lua));
    }
  }
}

/**
 * The floor: the gateway with the cache off against the relay (bench/relay.ts), which sends v1's page on
 * unchanged, with no parse and no translation, under the same load (a new key per request). No target: the
 * relay's reply is v1's bytes, not the legacy reply (1.4x as many with the bench's fake v1), so it is no
 * same-bytes baseline; the ratio is how much CPU per request the gateway spends above what any server between
 * the client and v1 spends. On Node 26 too, when the gateway's rows ran there (the relay runs on the bench's Node).
 */
export function printRelayFloor(rows: Rows, node26: string | undefined): void {
  say("The floor, a new API key per request, gateway cache off: CPU per request, gateway / relay (v1's page sent on unchanged;");
  say(' not the same bytes, left out of the same-bytes check; no target):');
  const gateways: Array<[string, (name: string) => string]> = [[`Node ${process.version}`, (name) => name]];
  if (SAME_BYTES_CPU_GOALS.some(({ records }) => rows(names.onNode26(names.translatedUncached(records))))) gateways.push([`Node ${node26 ?? '26'}`, names.onNode26]);
  for (const [label, on] of gateways) {
    say(`  the gateway on ${label}:`);
    for (const { records } of SAME_BYTES_CPU_GOALS) {
      const [gw, relay] = [on(names.translatedUncached(records)), names.relay(records)];
      figure(`    CPU gateway / relay ${records}`, cpuRatio(rows, gw, relay), 'x', undefined, sameBytesNote(rows, gw, relay));
    }
  }
}

export function printCachedRatios(rows: Rows, keys: number): void {
  say(`Served from the caches (${keys} API keys in rotation), and the passthrough:`);
  const t100 = names.translated(100);
  const t1000 = names.translated(1000);
  figure('  translated 100 / minimal reshaper 100', ratio(rows, t100, names.reshaper(100)), 'x');
  figure('  translated 100 / direct v1 100', ratio(rows, t100, names.direct(100)), 'x', { atLeast: 0.25 });
  figure('  translated 1000 / minimal reshaper 1000', ratio(rows, t1000, names.reshaper(1000)), 'x');
  figure('  translated 1000 / direct v1 1000', ratio(rows, t1000, names.direct(1000)), 'x');
  figure('  passthrough / bare express+HPM', ratio(rows, names.PASSTHROUGH, names.BARE_PASSTHROUGH), 'x', { atLeast: 1.5 }, cpuNote(rows, names.PASSTHROUGH, names.BARE_PASSTHROUGH));
  figure('  passthrough / direct v1', ratio(rows, names.PASSTHROUGH, names.direct(100)), 'x');
  figure(`  meetourteam cached (${keys} keys) / cold (new key/req, 200 members)`, ratio(rows, names.TEAM_CACHED, names.teamCold(200)), 'x', { atLeast: 5 });
  figure('  (logs off) translated 100 / direct v1 100', ratio(rows, names.logsOff(t100), names.direct(100)), 'x');
  figure('  (logs off) passthrough / bare express+HPM', ratio(rows, names.logsOff(names.PASSTHROUGH), names.BARE_PASSTHROUGH), 'x');
}

/** nginx's rows: the generated front against nginx alone, direct v1, and the gateway alone. */
export function printFrontRatios(rows: Rows): void {
  if (!rows(names.FRONT_PASSTHROUGH) && !rows(names.FRONT_TRANSLATED) && !rows(names.FRONT_TRANSLATED_UNCACHED)) return;
  say('nginx front (generated by `routes --format nginx`):');
  figure('  front passthrough / nginx plain proxy', ratio(rows, names.FRONT_PASSTHROUGH, names.NGINX_PLAIN), 'x', { atLeast: 0.9 });
  figure('  front passthrough / direct v1', ratio(rows, names.FRONT_PASSTHROUGH, names.direct(100)), 'x');
  figure('  front translated 100 / gateway translated 100 (cached)', ratio(rows, names.FRONT_TRANSLATED, names.translated(100)), 'x', { atLeast: 0.9 });
  figure('  front translated 100 / gateway alone, both cache off', ratio(rows, names.FRONT_TRANSLATED_UNCACHED, names.translatedUncached(100)), 'x', { atLeast: 0.9 });
  const us = (n: number | undefined) => (n === undefined ? 'n/a' : n.toFixed(0));
  const split = (target: string) => {
    const parts = rows(target)?.cpuUsPerRequestByPart;
    return `nginx ${us(parts?.nginx)} + gateway ${us(parts?.gateway)} us`;
  };
  sayFigure('  front CPU per request, passthrough', `${split(names.FRONT_PASSTHROUGH)}  (nginx plain proxy ${us(rows(names.NGINX_PLAIN)?.cpuUsPerRequest)} us)`);
  sayFigure('  front CPU per request, translated 100 cached', `${split(names.FRONT_TRANSLATED)}  (gateway alone ${us(rows(names.translated(100))?.cpuUsPerRequest)} us)`);
  sayFigure('  front CPU per request, translated 100 cache off', `${split(names.FRONT_TRANSLATED_UNCACHED)}  (gateway alone ${us(rows(names.translatedUncached(100))?.cpuUsPerRequest)} us)`);
}

/** Team listings at scale: CPU per cold listing by roster size, and memory with fifty keys at once. */
export function printTeamListings(rows: Rows, rosterSizes: number[], connections: number): void {
  say(`Team listings, cold (a new API key per request, ${connections} at once; each call reads every v1 page, sorts and cuts):`);
  for (const members of rosterSizes) {
    const row = rows(names.teamCold(members));
    const ms = row?.cpuUsPerRequest === undefined ? undefined : row.cpuUsPerRequest / 1000;
    figure(`  CPU per cold listing, ${members} members`, ms, 'ms', members === 10_000 ? { atMost: COLD_TEAM_CPU_MS } : undefined, row ? `(${row.rps.toFixed(0)} listings/s)` : '');
  }
  if (rosterSizes.includes(10_000)) {
    figure(`  peak RSS, ${connections} distinct keys listing 10,000 members at once`, rows(names.teamCold(10_000))?.rssMb, 'MB', connections >= 50 ? { atMost: 200 } : undefined);
  }
}

/** Every Node 26 row beside its Node 20 row (no target: the memory target is below). */
export function printNode26(all: Measured[], rows: Rows, node26: string | undefined): void {
  const twins = all.filter((r) => names.isNode26(r.target));
  if (twins.length === 0) return;
  say(`Gateway on Node 26 (${node26 ?? '?'}) beside Node ${process.version} (no target):`);
  for (const row of twins) {
    const base = rows(row.target.replace(/ \[Node 26\]$/, ''));
    const us = (m: Measured | undefined) => m?.cpuUsPerRequest?.toFixed(0) ?? 'n/a';
    const mb = (m: Measured | undefined) => m?.rssMb?.toFixed(0) ?? 'n/a';
    const rps = base && base.rps > 0 ? `${(row.rps / base.rps).toFixed(2)}x` : 'n/a';
    sayFigure(`  ${base?.target ?? row.target}`, `req/s ${rps} (${row.rps.toFixed(0)} vs ${base?.rps.toFixed(0) ?? 'n/a'}), CPU ${us(row)} vs ${us(base)} us/req, peak RSS ${mb(row)} vs ${mb(base)} MB`);
  }
}

/**
 * The 150 MB budget holds over the standard rows: the gateway with the handful of keys in rotation, on each
 * Node apart. Reported beside it, without a target: a new key per request with the cache off (nothing kept,
 * every call a v1 read and a reshape) and with the cache on (every reply a one-off entry); the large rosters
 * have a target of their own above.
 */
export function printMemory(all: Measured[], keys: number): void {
  const gateway = all.filter((r) => r.target.startsWith('gateway') && !/cold, (?!200 )\d+ members/.test(r.target));
  const worst = (of: Measured[]) => of.reduce<Measured | undefined>((a, b) => ((b.rssMb ?? 0) > (a?.rssMb ?? 0) ? b : a), undefined);
  const onNode = (rows: Measured[]): Array<[string, Measured[]]> => [
    [`Node ${process.version}`, rows.filter((r) => !names.isNode26(r.target))],
    ['Node 26', rows.filter((r) => names.isNode26(r.target))],
  ];
  for (const [label, of] of onNode(gateway.filter((r) => r.keys === 'handful'))) {
    const top = worst(of);
    if (top) figure(`gateway peak RSS, worst target, ${label}`, top.rssMb, 'MB', { atMost: 150 }, `(${keys} keys in rotation; worst: ${top.target})`);
  }
  for (const [label, of] of onNode(gateway.filter((r) => names.isCacheOff(r.target)))) {
    const top = worst(of);
    if (top) figure(`gateway peak RSS, new key per request, cache off, ${label}`, top.rssMb, 'MB', undefined, `(no target; worst: ${top.target})`);
  }
  const oneOff = gateway.filter((r) => r.keys === 'new per request' && !names.isCacheOff(r.target));
  const top = worst(oneOff);
  if (top) figure('gateway peak RSS, one new key per request, cache on', top.rssMb, 'MB', undefined, `(no target: every reply a one-off cache entry; ${top.target})`);
}

/**
 * The translation in process, without HTTP: the engine beside the minimal reshaper's work, and the floor
 * any translation that decodes and parses the whole v1 reply stays above (its "at most" is the minimal's
 * time over that floor: no such translation can be faster than the minimal by more); then the engine's
 * byte translation, which reads the page without decoding it or JSON.parse and so is not held to that floor.
 */
export function printTranslationFloor(floor: TranslationFloor | undefined): void {
  if (!floor) return;
  const ms = (n: number) => `${n < 1 ? n.toFixed(3) : n.toFixed(2)} ms`;
  say('Translation in this process, one call at a time, no HTTP (bench/translation-floor.ts):');
  for (const f of floor.lists) {
    sayFigure(
      `  clients ${f.records}: decode+parse / minimal / gateway engine`,
      `${ms(f.decodeParseMs)} / ${ms(f.minimalMs)} / ${ms(f.engineMs)}  (engine ${(f.minimalMs / f.engineMs).toFixed(2)}x the minimal; ` +
        `reading the whole reply allows at most ${(f.minimalMs / f.decodeParseMs).toFixed(2)}x)`,
    );
    sayFigure(
      `  clients ${f.records}: engine's byte translation`,
      `${ms(f.bytesMs)}  (${(f.bytesMs / f.engineMs).toFixed(2)}x the engine, ${(f.bytesMs / f.decodeParseMs).toFixed(2)}x decode+parse: no decoding or JSON.parse of the page)`,
    );
  }
  const { team } = floor;
  sayFigure(
    `  team listing, ${team.members.toLocaleString('en-US')} members: decode+parse / engine`,
    `${ms(team.decodeParseMs)} / ${ms(team.engineMs)}  (every page read, sorted, cut; the cold listing's target under load: <= ${COLD_TEAM_CPU_MS} ms)`,
  );
}
