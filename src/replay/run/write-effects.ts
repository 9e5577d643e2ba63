// Writes replayed before reads of the same resource: a payment that creates a client makes a later
// client list one record longer (`total`, an extra record), whatever the gateway does. The replay keeps
// the recorded order (the runner sends a write only once every earlier call is done, and nothing after it
// until it is), and marks what such a read shows in data, not in shape, as caused by the replay: `value`,
// `missing`, `extra` and `order` differences get `"cause": "replay"`. `type`, `format`, `key-order` and
// `status` stay gateway differences: a change of data does not change how the gateway spells a value.
// What a call reads and writes comes from the mappings, never from a table here, by the rule the gateway
// also invalidates its cache by (legacy-surface/resources-touched.ts): a legacy read reads its mapping's v1
// source; the payment writes the payment mapping's payments resource, and its clients resource when it
// names no client_id (a new client is created); /api/v1/{resource} passthrough calls read or write
// {resource}. Any other write is not followed.
// Pure: must never do I/O.
import type { MappingSet } from '../../mapping/mapping-set.js';
import { paymentWrites, resourceRead, v1CallWrites, v1ResourceOf } from '../../legacy-surface/resources-touched.js';
import type { PaymentMapping } from '../../payment/payment-mapping.js';
import type { Difference, DiffKind } from '../../json-diff/json-diff.js';
import type { ReplayDifference } from '../report/replay-difference.js';
import { legacyMethodOf } from '../recordings/legacy-method.js';
import { recordedBodyFields } from '../recordings/recorded-fields.js';
import type { RecordedExchange } from '../recordings/recording.js';
import { isPaymentCall, recordedPath } from './safety.js';

/** The mappings the target serves: what each legacy read reads, what the payment writes. */
export interface MappedResources {
  reads: MappingSet;
  payment: PaymentMapping | undefined;
}

/** The kinds a change of data can make; the others are about how the gateway writes a reply. */
const DATA_KINDS: ReadonlySet<DiffKind> = new Set<DiffKind>(['value', 'missing', 'extra', 'order']);

/** The gateway translates these methods on a mapped legacy path (the route table's rule). */
const READ_METHODS = new Set(['GET', 'HEAD']);

/** The v1 resources a recorded read reads; [] for a write or a call the mappings say nothing about. */
export function resourcesRead(exchange: RecordedExchange, mappings: MappedResources): string[] {
  const { method, url } = exchange.request;
  if (!READ_METHODS.has(method.toUpperCase())) return [];
  const mapping = mappings.reads.get(legacyMethodOf(url));
  const p = recordedPath(url);
  const resource = mapping !== undefined ? resourceRead(mapping) : p === undefined ? undefined : v1ResourceOf(p);
  return resource === undefined ? [] : [resource];
}

/** The v1 resources a recorded write changes; [] for a read or a write not followed. */
export function resourcesWritten(exchange: RecordedExchange, mappings: MappedResources): string[] {
  const { method, url } = exchange.request;
  if (isPaymentCall(method, url)) {
    if (mappings.payment === undefined) return [];
    const fields = recordedBodyFields(exchange.request);
    return paymentWrites(mappings.payment, (name) => fields.find(([field]) => field === name)?.[1]);
  }
  const p = recordedPath(url);
  return p === undefined ? [] : v1CallWrites(method, p);
}

/** The differences of a read after a replayed write of what it reads, data differences marked. */
export function markCausedByReplay(diffs: readonly Difference[]): ReplayDifference[] {
  return diffs.map((d) => (DATA_KINDS.has(d.kind) ? { ...d, cause: 'replay' } : d));
}

/**
 * Follows one pass over the recording in file order: the writes the replay sends, and the later reads of
 * what they wrote. Also counts them, for the warning given before any call is made.
 */
export class ReplayedWrites {
  private readonly written = new Set<string>();
  private writes = 0;
  private reads = 0;
  private readonly readMethods = new Set<string>();
  private readonly readResources = new Set<string>();

  constructor(private readonly mappings: MappedResources | undefined) {}

  /** A write the replay sends (or sent: once sent, its effect is there whatever it answered). */
  add(exchange: RecordedExchange): void {
    if (this.mappings === undefined) return;
    const resources = resourcesWritten(exchange, this.mappings);
    if (resources.length > 0) this.writes++;
    for (const r of resources) this.written.add(r);
  }

  /** Whether the read reads a resource an earlier replayed write changed. */
  readsWritten(exchange: RecordedExchange): boolean {
    if (this.mappings === undefined || this.written.size === 0) return false;
    const touched = resourcesRead(exchange, this.mappings).filter((r) => this.written.has(r));
    if (touched.length === 0) return false;
    this.reads++;
    this.readMethods.add(legacyMethodOf(exchange.request.url));
    for (const r of touched) this.readResources.add(r);
    return true;
  }

  /** The operator's warning once the whole file was followed; undefined when no read follows a write. */
  warning(): string | undefined {
    if (this.reads === 0) return undefined;
    const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
    return (
      `warning: ${plural(this.reads, 'replayed read')} (${[...this.readMethods].sort().join(', ')}) read what an earlier replayed write ` +
      `changed (v1 ${[...this.readResources].sort().join(', ')}; ${plural(this.writes, 'write')} in all): writes are sent in recorded order, one at a time; ` +
      'the value, missing, extra and order differences of those reads are marked "cause": "replay" and not counted as gateway differences'
    );
  }
}
