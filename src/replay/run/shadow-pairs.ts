// `replay --shadow-pairs`: the lines of the gateway's SHADOW_DIFF_FILE (gateway/shadow/diff-file.ts) are
// rendered as they were recorded, nothing is sent. Each line answers for itself: the expected reply is its
// `response` (what was served), the actual one its `shadow.candidate` (what the candidate mappings would
// have answered), and its legacy method is `shadow.legacyMethod`. A line without a usable `shadow` is an
// input error (exit code 2): the file is not a shadow diff file.
// Pure: must never do I/O.
import { z } from 'zod';
import { asJsonValue, stringifyExact } from '../../shared/json-exact.js';
import { RecordingEntryError, type RecordedExchange } from '../recordings/recording.js';
import type { TargetReply } from './entry-outcome.js';

/** One recorded pair: the candidate's reply and the method it was read as. */
export interface ShadowPair {
  legacyMethod: string;
  candidate: TargetReply;
}

const shadowSchema = z.object({
  legacyMethod: z.string().min(1),
  candidate: z.object({
    status: z.number().int().min(0).max(999),
    body: z.unknown().optional(),
  }),
});

/** The pair recorded on the entry; throws RecordingEntryError (naming the entry) when it has none. */
export function shadowPairOf(exchange: RecordedExchange): ShadowPair {
  if (exchange.shadow === undefined) {
    throw new RecordingEntryError(`${exchange.location}: no "shadow" (--shadow-pairs reads the lines of the gateway's SHADOW_DIFF_FILE)`);
  }
  const parsed = shadowSchema.safeParse(exchange.shadow);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = ['shadow', ...(issue?.path ?? [])].join('.');
    throw new RecordingEntryError(`${exchange.location}: ${where}: ${issue?.message ?? 'invalid'}`);
  }
  const { legacyMethod, candidate } = parsed.data;
  const body = asJsonValue(candidate.body);
  // The gateway writes the candidate's body as text; a JSON value is compared in its exact spelling.
  const text = body === undefined || body === null ? '' : typeof body === 'string' ? body : stringifyExact(body);
  return { legacyMethod, candidate: { status: candidate.status, text } };
}

/** The entry as the report shows it: named by the method the shadow read it as. */
export function withShadowMethod(exchange: RecordedExchange, pair: ShadowPair): RecordedExchange {
  return { ...exchange, legacyMethod: pair.legacyMethod };
}
