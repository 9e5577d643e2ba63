// One recorded call, whatever file it came from: a HAR 1.2 entry (browser, mitmproxy, Charles export) or a
// JSONL line (`{"request":{method,url,headers,body},"response":{status,headers,body}}`, as the gateway's
// recorder writes). zod validates each entry at this boundary; the rest of the replay trusts the type.
// Pure: converts already-parsed values; it must never read files, and its errors name the place in the
// file (`log.entries[12].response.status`, `line 13: request.url`) and the reason, never a header value.
import { z } from 'zod';
import { asJsonValue, type JsonValue } from '../../shared/json-exact.js';
import type { HeaderPair } from '../../shared/redact.js';

export type RecordedRequestBody =
  | { kind: 'text'; text: string }
  | { kind: 'json'; value: JsonValue }
  | { kind: 'form'; fields: HeaderPair[] };

/**
 * A recorded reply body: the text as recorded (parsed only when it must be compared, so reading a file
 * stays cheap), or a JSON value the recording embedded as such (JSONL).
 */
export type RecordedReplyBody = { kind: 'text'; text: string } | { kind: 'json'; value: JsonValue };

export interface RecordedExchange {
  /** 0-based position in the file. */
  index: number;
  /** Where the entry is, for messages: `line 13`, `log.entries[12]`. */
  location: string;
  request: {
    method: string;
    /** As recorded: absolute (HAR) or absolute/path-only (JSONL). */
    url: string;
    headers: HeaderPair[];
    body: RecordedRequestBody | undefined;
  };
  response: {
    status: number;
    headers: HeaderPair[];
    /** undefined: the recording holds no body for this reply (nothing to compare). */
    body: RecordedReplyBody | undefined;
  };
  /** A JSONL line's `shadow` field as written (the gateway's SHADOW_DIFF_FILE), read only by --shadow-pairs (run/shadow-pairs.ts). */
  shadow?: unknown;
  /** The legacy method the entry names itself (a shadow pair's `shadow.legacyMethod`); else read from the URL. */
  legacyMethod?: string;
}

export class RecordingEntryError extends Error {
  override name = 'RecordingEntryError';
}

const urlText = z
  .string()
  .min(1)
  .refine((u) => u.startsWith('/') || URL.canParse(u), 'not an absolute URL or a path starting with "/"');

const harHeader = z.object({ name: z.string(), value: z.string() });

const harEntrySchema = z.object({
  request: z.object({
    method: z.string().min(1),
    url: urlText,
    headers: z.array(harHeader).default([]),
    postData: z
      .object({
        mimeType: z.string().optional(),
        text: z.string().optional(),
        encoding: z.string().optional(),
        params: z.array(z.object({ name: z.string(), value: z.string().optional() })).optional(),
      })
      .optional(),
  }),
  response: z.object({
    // 0: the request failed or was blocked in the browser; such entries are skipped.
    status: z.number().int().min(0).max(999),
    headers: z.array(harHeader).default([]),
    content: z
      .object({
        size: z.number().optional(),
        mimeType: z.string().optional(),
        text: z.string().optional(),
        encoding: z.string().optional(),
      })
      .default({}),
  }),
});

const headerMap = z.union([
  z.record(z.string(), z.union([z.string(), z.number(), z.array(z.string())])),
  z.array(harHeader),
]);

const jsonlLineSchema = z.object({
  request: z.object({
    method: z.string().min(1),
    url: urlText,
    headers: headerMap.optional(),
    body: z.unknown().optional(),
  }),
  response: z.object({
    status: z.number().int().min(0).max(999),
    headers: headerMap.optional(),
    body: z.unknown().optional(),
  }),
  shadow: z.unknown().optional(),
});

function issuesText(error: z.ZodError, prefix: string): string {
  return error.issues
    .map((i) => {
      const path = i.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('');
      return `${prefix}${path}: ${i.message}`;
    })
    .join('; ');
}

function decodeText(text: string, encoding: string | undefined, where: string): string {
  if (encoding === undefined || encoding === '') return text;
  if (encoding.toLowerCase() !== 'base64') throw new RecordingEntryError(`${where}.encoding: unsupported encoding "${encoding.slice(0, 20)}" (HAR allows "base64")`);
  if (!/^[A-Za-z0-9+/=\s_-]*$/.test(text)) throw new RecordingEntryError(`${where}.text: encoding is base64 but the text is not base64`);
  return Buffer.from(text, 'base64').toString('utf8');
}

/** Converts one `log.entries[i]` value of a HAR file. */
export function fromHarEntry(raw: unknown, index: number): RecordedExchange {
  const location = `log.entries[${index}]`;
  const parsed = harEntrySchema.safeParse(raw);
  if (!parsed.success) throw new RecordingEntryError(issuesText(parsed.error, location));
  const { request, response } = parsed.data;
  let body: RecordedRequestBody | undefined;
  const post = request.postData;
  if (post?.text !== undefined) {
    body = { kind: 'text', text: decodeText(post.text, post.encoding, `${location}.request.postData`) };
  } else if (post?.params !== undefined) {
    body = { kind: 'form', fields: post.params.map((p) => [p.name, p.value ?? ''] as const) };
  }
  const headers = request.headers.map((h) => [h.name, h.value] as const);
  if (body !== undefined && post?.mimeType && !headers.some(([n]) => n.toLowerCase() === 'content-type')) {
    headers.push(['Content-Type', post.mimeType]);
  }
  const content = response.content;
  let replyBody: RecordedReplyBody | undefined;
  if (content.text !== undefined) {
    replyBody = { kind: 'text', text: decodeText(content.text, content.encoding, `${location}.response.content`) };
  } else if (content.size === 0 || response.status === 204) {
    replyBody = { kind: 'text', text: '' };
  }
  return {
    index,
    location,
    request: { method: request.method.toUpperCase(), url: request.url, headers, body },
    response: { status: response.status, headers: response.headers.map((h) => [h.name, h.value] as const), body: replyBody },
  };
}

function headerPairs(headers: z.infer<typeof headerMap> | undefined): HeaderPair[] {
  if (headers === undefined) return [];
  if (Array.isArray(headers)) return headers.map((h) => [h.name, h.value] as const);
  const out: HeaderPair[] = [];
  for (const [name, value] of Object.entries(headers)) {
    for (const v of Array.isArray(value) ? value : [value]) out.push([name, String(v)]);
  }
  return out;
}

/** Converts one parsed JSONL line (`lineNumber` is 1-based, for messages). */
export function fromJsonlLine(raw: unknown, index: number, lineNumber: number): RecordedExchange {
  const location = `line ${lineNumber}`;
  const parsed = jsonlLineSchema.safeParse(raw);
  if (!parsed.success) throw new RecordingEntryError(issuesText(parsed.error, `${location}: `).replace(/: \./g, ': '));
  const { request, response, shadow } = parsed.data;
  const requestBody = asJsonValue(request.body);
  const replyBody = asJsonValue(response.body);
  let body: RecordedRequestBody | undefined;
  if (typeof requestBody === 'string') body = { kind: 'text', text: requestBody };
  else if (requestBody !== undefined && requestBody !== null) body = { kind: 'json', value: requestBody };
  let reply: RecordedReplyBody | undefined;
  if (typeof replyBody === 'string') reply = { kind: 'text', text: replyBody };
  else if (replyBody !== undefined && replyBody !== null) reply = { kind: 'json', value: replyBody };
  return {
    index,
    location,
    request: { method: request.method.toUpperCase(), url: request.url, headers: headerPairs(request.headers), body },
    response: { status: response.status, headers: headerPairs(response.headers), body: reply },
    ...(shadow !== undefined ? { shadow } : {}),
  };
}
