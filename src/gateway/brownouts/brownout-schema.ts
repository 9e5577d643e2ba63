// The brownouts file (BROWNOUTS_FILE), as an operator writes it, validated with zod: named windows in
// UTC, each with its scope (every integration, or some by name, less an `except` list), the legacy read
// methods it refuses (default: every one), whether it refuses the payment too (default: never), and an
// optional repeat (`every: 7d` or `12h`, until a date). The schema only checks each window's own shape;
// what the gateway knows (the legacy methods served) is checked by the loader (brownout-file.ts).
import { z } from 'zod';

/** A moment with its offset (`2027-01-12T14:00:00Z`, `...+01:00`): a window is never in local time. YAML's
 * own timestamp type is accepted too, for a loader that reads it as one. */
const moment = z.preprocess(
  (v) => (v instanceof Date && !Number.isNaN(v.getTime()) ? v.toISOString() : v),
  z
    .string({ error: 'must be a date and time with its offset (2027-01-12T14:00:00Z)' })
    .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/, 'must be a date and time with its offset (2027-01-12T14:00:00Z)')
    .refine((v) => {
      // Date.parse takes 2027-02-30 for 2 March: the day must read back as it was written.
      const day = new Date(`${v.slice(0, 10)}T00:00:00Z`);
      return !Number.isNaN(Date.parse(v)) && !Number.isNaN(day.getTime()) && day.toISOString().slice(0, 10) === v.slice(0, 10);
    }, 'is not a valid date')
    .transform((v) => new Date(v)),
);

const HOUR_MS = 3_600_000;

/** `7d`, `12h`: how far apart two occurrences of a repeated window begin. */
const period = z
  .string()
  .regex(/^[1-9]\d{0,3}[dh]$/, 'must be a number of days or hours (7d, 12h)')
  .transform((v) => Number(v.slice(0, -1)) * (v.endsWith('d') ? 24 : 1) * HOUR_MS);

/** A window's name: it is a metric label and part of a notice, so short and plain. */
const windowName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'must be 1 to 64 letters, digits, dots, dashes or underscores');

const integrationNames = z.array(z.string().min(1).max(200)).min(1, 'must name at least one integration');

const brownoutWindow = z
  .strictObject({
    name: windowName,
    start: moment,
    end: moment,
    all: z.literal(true, { error: 'must be true (or name the integrations instead)' }).optional(),
    integrations: integrationNames.optional(),
    except: integrationNames.optional(),
    methods: z.array(z.string().min(1)).min(1, 'must name at least one legacy method (or leave it out: every read method)').optional(),
    payments: z.boolean().default(false),
    repeat: z.strictObject({ every: period, until: moment }).optional(),
  })
  .superRefine((w, ctx) => {
    if (w.end <= w.start) ctx.addIssue({ code: 'custom', path: ['end'], message: 'must be after start' });
    if ((w.all === true) === (w.integrations !== undefined)) {
      ctx.addIssue({ code: 'custom', path: ['all'], message: 'say `all: true` or list `integrations`, one of the two' });
    }
    if (w.methods?.includes('payment')) ctx.addIssue({ code: 'custom', path: ['methods'], message: 'the payment is refused with `payments: true`, not in methods' });
    if (w.repeat) {
      if (w.repeat.every < w.end.getTime() - w.start.getTime()) {
        ctx.addIssue({ code: 'custom', path: ['repeat', 'every'], message: 'must be at least the window\'s length (occurrences may not overlap)' });
      }
      if (w.repeat.until < w.start) ctx.addIssue({ code: 'custom', path: ['repeat', 'until'], message: 'must not be before start' });
    }
  });

export const brownoutsFileSchema = z
  .strictObject({ brownouts: z.array(brownoutWindow) })
  .superRefine((file, ctx) => {
    const seen = new Set<string>();
    file.brownouts.forEach((w, i) => {
      if (seen.has(w.name)) ctx.addIssue({ code: 'custom', path: ['brownouts', i, 'name'], message: `"${w.name}" names two windows` });
      seen.add(w.name);
    });
  });

export type BrownoutWindowInput = z.input<typeof brownoutWindow>;

/** One window as the gateway holds it (times in ms since the epoch). */
export interface BrownoutWindow {
  name: string;
  start: number;
  end: number;
  /** Integrations by name; undefined: every integration (`all: true`), named or not. */
  integrations: ReadonlySet<string> | undefined;
  except: ReadonlySet<string>;
  /** Legacy read methods refused; undefined: every one. */
  methods: ReadonlySet<string> | undefined;
  payments: boolean;
  repeat: { everyMs: number; until: number } | undefined;
}

/** The validated file's windows, in the form the window math reads. */
export function brownoutWindows(file: z.output<typeof brownoutsFileSchema>): BrownoutWindow[] {
  return file.brownouts.map((w) => ({
    name: w.name,
    start: w.start.getTime(),
    end: w.end.getTime(),
    integrations: w.integrations ? new Set(w.integrations) : undefined,
    except: new Set(w.except ?? []),
    methods: w.methods ? new Set(w.methods) : undefined,
    payments: w.payments,
    repeat: w.repeat ? { everyMs: w.repeat.every, until: w.repeat.until.getTime() } : undefined,
  }));
}
