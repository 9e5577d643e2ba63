// zod's issues as sentences a person can act on: what is wrong, by the name the person wrote (a setting, a
// flag, a path in a mapping file), and what is allowed, in words; never a validator's own text ("Too small:
// expected number to be >=1"). The one place where the settings, the command lines' flags and the mapping
// files get their wording. Pure.
//
// Two parts:
// - `expectation`, the error map each parse is given (`schema.safeParse(value, { error: expectation })`):
//   the allowed values as a predicate ("must be a whole number from 0 to 65535"), read from the schema
//   itself (its bounds, its options, its `.describe()`, which names the allowed value: "a port number").
//   A message a schema gives for itself (`{ error: ... }` or a refinement's message) wins over it, and
//   is written in the same form ("must ...", "is ...").
// - `issueReason` and `issueSentence`, which add the value received when it may be repeated
//   ("got \"abc\"") and the name.
import type { z } from 'zod';

type Issue = z.core.$ZodIssue;
type RawIssue = z.core.$ZodRawIssue;

/** Bounds that mean "no bound" (zod's safe-integer limits, infinities). */
const unbounded = (n: unknown): boolean => typeof n !== 'number' || !Number.isFinite(n) || Math.abs(n) >= Number.MAX_SAFE_INTEGER;

interface NumberSchemaFacts {
  minValue?: number | null;
  maxValue?: number | null;
  isInt?: boolean;
}

/** "a whole number from 0 to 65535", "a number of at least 1", from the number schema's own checks. */
function numberPhrase(schema: unknown, exclusiveMin = false): string {
  const facts = (typeof schema === 'object' && schema !== null ? schema : {}) as NumberSchemaFacts;
  const noun = facts.isInt === true ? 'a whole number' : 'a number';
  const min = unbounded(facts.minValue) ? undefined : facts.minValue!;
  const max = unbounded(facts.maxValue) ? undefined : facts.maxValue!;
  if (min !== undefined && max !== undefined && !exclusiveMin) return `${noun} from ${min} to ${max}`;
  if (min !== undefined && exclusiveMin) return `${noun} above ${min}${max !== undefined ? ` and at most ${max}` : ''}`;
  if (min !== undefined) return `${noun} of at least ${min}`;
  if (max !== undefined) return `${noun} of at most ${max}`;
  return noun;
}

const TYPE_NOUNS: Readonly<Record<string, string>> = {
  string: 'text',
  boolean: 'true or false',
  array: 'a list',
  object: 'a set of named values (key: value)',
  record: 'a set of named values (key: value)',
  map: 'a set of named values (key: value)',
  date: 'a date',
  null: 'null',
};

/** A value of a list of allowed values, as written in a file or on a command line. */
const spelled = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

/** The allowed values, as one predicate. */
const oneOf = (values: readonly unknown[]): string =>
  values.length === 1 ? `must be ${spelled(values[0])}` : `must be one of ${values.map(spelled).join(', ')}`;

function countOf(n: number | bigint, one: string, many: string): string {
  return `${n} ${Number(n) === 1 ? one : many}`;
}

/** The wording of one issue when its schema gives none of its own: see the head of this file. */
export const expectation: z.core.$ZodErrorMap = (issue: RawIssue) => {
  // The schema the issue is about (a check's issue names the check as `inst`, its schema as `schema`).
  const schema = ((issue as { schema?: unknown }).schema ?? issue.inst) as { description?: string } | undefined;
  // Required: nothing was given where a value must be.
  if (issue.code === 'invalid_type' && issue.input === undefined) return 'is required';
  if (issue.code === 'invalid_value' && issue.input === undefined) return `is required: ${oneOf(issue.values).replace(/^must be /, '')}`;
  const described = schema?.description;
  if (described !== undefined && issue.code !== 'unrecognized_keys' && issue.code !== 'custom') return `must be ${described}`;
  switch (issue.code) {
    case 'invalid_type':
      if (issue.expected === 'number' || issue.expected === 'int' || issue.expected === 'bigint') return `must be ${numberPhrase(schema)}`;
      return `must be ${TYPE_NOUNS[issue.expected] ?? issue.expected}`;
    case 'too_small':
    case 'too_big': {
      const small = issue.code === 'too_small';
      const bound = small ? issue.minimum : issue.maximum;
      if (issue.origin === 'number' || issue.origin === 'int' || issue.origin === 'bigint') {
        return `must be ${numberPhrase(schema, small && issue.inclusive === false)}`;
      }
      if (issue.origin === 'string') {
        if (small && Number(bound) === 1) return 'must not be empty';
        return `must have ${small ? 'at least' : 'at most'} ${countOf(bound, 'character', 'characters')}`;
      }
      if (small && Number(bound) === 1) return 'must not be empty';
      return `must have ${small ? 'at least' : 'at most'} ${countOf(bound, 'entry', 'entries')}`;
    }
    case 'invalid_value':
      return oneOf(issue.values);
    case 'invalid_union': {
      const options = (issue as { options?: unknown[] }).options;
      if (Array.isArray(options) && options.length > 0) return oneOf(options);
      return 'does not have any of the allowed forms';
    }
    case 'invalid_format': {
      if (issue.format === 'regex') return `must match ${String((issue as { pattern?: unknown }).pattern)}`;
      if (issue.format === 'starts_with' || issue.format === 'ends_with' || issue.format === 'includes') {
        const part = (issue as { prefix?: string; suffix?: string; includes?: string });
        return `must ${issue.format.replace('_', ' ').replace('starts', 'start').replace('ends', 'end').replace('includes', 'include')} ${JSON.stringify(part.prefix ?? part.suffix ?? part.includes)}`;
      }
      return `must be ${issue.format === 'url' ? 'a URL' : `a valid ${issue.format}`}`;
    }
    case 'not_multiple_of':
      return `must be a multiple of ${String(issue.divisor)}`;
    case 'unrecognized_keys':
      return issue.keys.length === 1
        ? `has a key that is not allowed here: ${issue.keys[0]}`
        : `has keys that are not allowed here: ${issue.keys.join(', ')}`;
    case 'invalid_key':
      return 'has a key that is not allowed here';
    case 'invalid_element':
      return 'has an entry that is not allowed here';
    default:
      return 'is not allowed here';
  }
};

/** How a received value may be repeated: short, and never when the caller says it may hold a secret. */
function received(value: unknown): string | undefined {
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/** The issue's reason, with the value received when one is given that may be repeated:
 * `must be one of nginx, haproxy; got "apache"` (a `;` when the reason holds a comma, else a `,`). */
export function issueReason(issue: Pick<Issue, 'message'>, value?: { value: unknown }): string {
  const reason = issue.message;
  const got = value === undefined ? undefined : received(value.value);
  if (got === undefined) return reason;
  return `${reason}${reason.includes(',') ? ';' : ','} got ${got}`;
}

/** One sentence: `PORT must be a whole number from 0 to 65535, got "abc"`. */
export function issueSentence(name: string, issue: Pick<Issue, 'message'>, value?: { value: unknown }): string {
  return `${name} ${issueReason(issue, value)}`;
}

/** The value at a path inside parsed data, for `issueReason` (undefined when the path leads nowhere). */
export function valueAt(data: unknown, path: readonly PropertyKey[]): { value: unknown } | undefined {
  let here: unknown = data;
  for (const key of path) {
    if (typeof here !== 'object' || here === null) return undefined;
    here = (here as Record<PropertyKey, unknown>)[key];
  }
  return here === undefined ? undefined : { value: here };
}
