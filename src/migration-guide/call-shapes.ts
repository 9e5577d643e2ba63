// How one integration calls the legacy API, as the gateway's usage report counts it: per legacy method, its
// calls and the call shapes it used (the method and the names of its query parameters, `client?email`,
// never their values); the HTTP statuses its calls were answered with and the legacy codes of its payments,
// when the report counts them. Read from the report's plain data; a shape that cannot be read is left out. Pure.

/** One call shape of one method: the query parameter names, in the order the shape gives them. */
export interface CallShape {
  /** As the report spells it (`client?email`). */
  shape: string;
  params: string[];
  calls: number;
}

export interface MethodUse {
  calls: number;
  /** Empty when the report counts no shapes for the method. */
  shapes: CallShape[];
}

/** What the guide knows of the integration it is written for. */
export interface IntegrationCalls {
  /** Its name, when the gateway knows it. */
  name: string | undefined;
  fingerprint: string;
  /** Legacy method -> how it was called. */
  methods: ReadonlyMap<string, MethodUse>;
  /** HTTP status -> its calls answered with it, as the report counts them; empty when it does not. */
  statuses: ReadonlyMap<number, number>;
  /** Legacy payment code -> its payments answered with it; empty when the report does not count them. */
  paymentCodes: ReadonlyMap<number, number>;
}

/** `{ "200": 12, "404": 1 }` -> 200 -> 12, 404 -> 1, by number; what is not a whole number is left out. */
function countsByNumber(value: unknown): Map<number, number> {
  const out = new Map<number, number>();
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return out;
  for (const [key, calls] of Object.entries(value as Record<string, unknown>)) {
    if (/^\d{1,3}$/.test(key) && countOf(calls) > 0) out.set(Number(key), countOf(calls));
  }
  return new Map([...out].sort(([a], [b]) => a - b));
}

/** `client?email&first_name` -> `client` and `[email, first_name]`; a method without a query has none. */
export function parseCallShape(shape: string): { method: string; params: string[] } | undefined {
  const [head = '', query] = shape.split('?', 2);
  const method = head.split('/')[0] ?? '';
  if (!/^[a-z][a-z0-9_]*$/.test(method)) return undefined;
  const params = query === undefined ? [] : query.split(/[&,]/).map((p) => p.trim()).filter((p) => p !== '');
  return { method, params };
}

const countOf = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0);

/** The methods and shapes of one usage report entry (`methods`: name -> count; `shapes`: shape -> count). */
export function integrationCalls(entry: {
  name?: unknown;
  fingerprint: string;
  methods: Readonly<Record<string, unknown>>;
  shapes?: unknown;
  statuses?: unknown;
  paymentCodes?: unknown;
}): IntegrationCalls {
  const methods = new Map<string, MethodUse>();
  for (const [method, calls] of Object.entries(entry.methods)) {
    if (countOf(calls) > 0) methods.set(method, { calls: countOf(calls), shapes: [] });
  }
  const uncounted = new Set<string>();
  const shapes = typeof entry.shapes === 'object' && entry.shapes !== null ? Object.entries(entry.shapes as Record<string, unknown>) : [];
  for (const [shape, calls] of shapes) {
    const parsed = parseCallShape(shape);
    if (!parsed || countOf(calls) === 0) continue;
    let use = methods.get(parsed.method);
    if (!use) {
      // A method the report counts only by its shapes: its calls are theirs.
      use = { calls: 0, shapes: [] };
      methods.set(parsed.method, use);
      uncounted.add(parsed.method);
    }
    if (uncounted.has(parsed.method)) use.calls += countOf(calls);
    use.shapes.push({ shape, params: parsed.params, calls: countOf(calls) });
  }
  for (const use of methods.values()) use.shapes.sort((a, b) => b.calls - a.calls || (a.shape < b.shape ? -1 : 1));
  const name = typeof entry.name === 'string' && entry.name !== '' ? entry.name : undefined;
  return { name, fingerprint: entry.fingerprint, methods, statuses: countsByNumber(entry.statuses), paymentCodes: countsByNumber(entry.paymentCodes) };
}
