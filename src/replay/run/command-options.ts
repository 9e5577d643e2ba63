// The options of `legacy-gateway replay` as the command receives them from commander: validated with
// zod into typed settings, and every bad value reported by its flag (`--rate: must be calls per second`).
// Pure: must never do I/O; a bad value is a ReplayUsageError (exit code 2), never a process exit.
import { z } from 'zod';
import { expectation, issueSentence } from '../../shared/issue-text.js';
import { DEFAULT_HOURLY_BUDGET } from './budget.js';
import { DEFAULT_GATE, parseDifferenceGate, type DifferenceGate } from '../report/gate.js';

/** A malformed command line or option value: exit code 2. */
export class ReplayUsageError extends Error {
  override name = 'ReplayUsageError';
}

const httpUrl = z
  .string()
  .refine((v) => URL.canParse(v) && /^https?:$/.test(new URL(v).protocol), 'must be an http:// or https:// URL');

const wholeNumber = (min: number, max: number): z.ZodType<number, string> =>
  z
    .string()
    .regex(/^\d+$/, max >= Number.MAX_SAFE_INTEGER ? `must be a whole number of at least ${min}` : `must be a whole number from ${min} to ${max}`)
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

/** `--max-differences`: `N` (in all), `severity=N,...`, or both (report/gate.ts). */
const differenceGate = z
  .string()
  .optional()
  .transform((v, ctx): DifferenceGate => {
    if (v === undefined) return DEFAULT_GATE;
    const gate = parseDifferenceGate(v);
    if (typeof gate !== 'string') return gate;
    ctx.addIssue({ code: z.ZodIssueCode.custom, message: gate });
    return z.NEVER;
  });

const optionsSchema = z
  .object({
    target: httpUrl.optional(),
    upstream: httpUrl.optional(),
    apiKey: z.string().min(1, 'must not be empty').optional(),
    json: z.string().min(1).optional(),
    html: z.string().min(1).optional(),
    maxDifferences: differenceGate,
    checkOrder: z.boolean().default(true),
    checkKeyOrder: z.boolean().default(true),
    rules: z.string().min(1).optional(),
    defaultRules: z.boolean().default(true),
    concurrency: wholeNumber(1, 256).default(8),
    rate: z
      .string()
      .regex(/^\d+(\.\d+)?(\/s)?$/, 'must be calls per second, e.g. 10/s or 0.5/s')
      .transform((v) => Number(v.replace(/\/s$/, '')))
      .pipe(z.number().positive('must be above 0'))
      .optional(),
    budget: wholeNumber(1, Number.MAX_SAFE_INTEGER).default(DEFAULT_HOURLY_BUDGET),
    timeout: wholeNumber(1, 3_600_000).default(30_000),
    format: z.enum(['har', 'jsonl']).optional(),
    includeWrites: z.boolean().default(false),
    allowProductionWrites: z.boolean().default(false),
    allPaths: z.boolean().default(false),
    compareKeyRefusals: z.boolean().default(false),
    proposeMappings: z.string().trim().min(1, 'must name a directory').optional(),
    shadowPairs: z.boolean().default(false),
  })
  .refine((o) => !(o.target && o.upstream), {
    message: 'cannot be combined with --target (--upstream configures the in-process gateway, --target names a running one)',
    path: ['upstream'],
  })
  .refine((o) => !o.shadowPairs || (o.target === undefined && o.upstream === undefined && o.proposeMappings === undefined), {
    message: 'renders the pairs recorded in the file and sends nothing: --target, --upstream and --propose-mappings do not apply',
    path: ['shadowPairs'],
  })
  .refine((o) => !o.shadowPairs || !o.compareKeyRefusals, {
    message: 'sends nothing: --compare-key-refusals does not apply',
    path: ['shadowPairs'],
  })
  .refine((o) => !o.allowProductionWrites || o.includeWrites, {
    message: 'applies only together with --include-writes',
    path: ['allowProductionWrites'],
  });

export type ReplayCommandOptions = z.infer<typeof optionsSchema>;

const OPTION_FLAGS: Readonly<Record<string, string>> = {
  target: '--target',
  upstream: '--upstream',
  apiKey: '--api-key',
  json: '--json',
  html: '--html',
  maxDifferences: '--max-differences',
  rules: '--rules',
  concurrency: '--concurrency',
  rate: '--rate',
  budget: '--budget',
  timeout: '--timeout',
  format: '--format',
  allowProductionWrites: '--allow-production-writes',
  proposeMappings: '--propose-mappings',
  shadowPairs: '--shadow-pairs',
  compareKeyRefusals: '--compare-key-refusals',
};

/** Validates commander's raw option values; throws ReplayUsageError naming each bad option. */
export function parseReplayOptions(raw: Record<string, unknown>): ReplayCommandOptions {
  const parsed = optionsSchema.safeParse(raw, { error: expectation });
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.map((i) => {
    const key = String(i.path[0] ?? '');
    // A value typed on the command line is repeated (a custom message names what it needs itself), but never
    // the API key.
    const value = key === 'apiKey' || i.code === 'custom' || typeof raw[key] !== 'string' ? undefined : { value: raw[key] };
    return issueSentence(OPTION_FLAGS[key] ?? key, i, value);
  });
  throw new ReplayUsageError(lines.join('\n'));
}
