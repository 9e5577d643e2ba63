// Reads a legacy payment body into flat text fields: application/x-www-form-urlencoded (what old
// integrations send), multipart/form-data (fields only; busboy), or JSON. The size limit is enforced
// while reading, so an oversized body is refused without being held in memory. It never logs a field.
import type { IncomingMessage } from 'node:http';
import busboy from 'busboy';

export type BodyResult =
  | { ok: true; fields: Record<string, string>; fileFields: string[]; invalidFields: string[] }
  | { ok: false; problem: 'too-large' | 'unsupported' | 'malformed' };

function mediaType(req: IncomingMessage): string {
  return String(req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}

/** Reads the whole body up to `limit` bytes; resolves undefined when it is larger. */
function readLimited(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    req.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > limit) {
        done = true;
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!done) resolve(Buffer.concat(chunks));
    });
    req.on('error', reject);
  });
}

/** JSON values become text as a form would carry them; objects and arrays are invalid fields. */
function fromJson(data: unknown): BodyResult {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return { ok: false, problem: 'malformed' };
  const fields: Record<string, string> = {};
  const invalidFields: string[] = [];
  for (const [name, value] of Object.entries(data)) {
    if (value === null) fields[name] = '';
    else if (typeof value === 'string') fields[name] = value;
    else if (typeof value === 'number' || typeof value === 'boolean') fields[name] = typeof value === 'boolean' ? (value ? '1' : '0') : String(value);
    else invalidFields.push(name);
  }
  return { ok: true, fields, fileFields: [], invalidFields };
}

function fromMultipart(req: IncomingMessage, limit: number): Promise<BodyResult> {
  return new Promise((resolve) => {
    const fields: Record<string, string> = {};
    const fileFields: string[] = [];
    let settled = false;
    const finish = (result: BodyResult) => {
      if (settled) return;
      settled = true;
      resolve(result);
    };
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, limits: { fieldSize: limit, fields: 500, parts: 1000 } });
    } catch {
      finish({ ok: false, problem: 'malformed' });
      req.resume();
      return;
    }
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        finish({ ok: false, problem: 'too-large' });
        req.unpipe(parser);
        req.resume();
      }
    });
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) return finish({ ok: false, problem: 'too-large' });
      fields[name] = value;
    });
    parser.on('file', (name, stream) => {
      // A file is refused (code 0), but its bytes must still be drained for the parser to finish.
      fileFields.push(name);
      stream.resume();
    });
    parser.on('error', () => finish({ ok: false, problem: 'malformed' }));
    parser.on('close', () => finish({ ok: true, fields, fileFields, invalidFields: [] }));
    req.pipe(parser);
  });
}

/** A body a host app's parser (express.json(), express.urlencoded()) already read: the fields it parsed,
 * taken as JSON values are; reading the spent stream again would wait for ever. */
function alreadyRead(req: IncomingMessage): BodyResult {
  const parsed = (req as { body?: unknown }).body;
  if (parsed === undefined || parsed === null) return { ok: true, fields: {}, fileFields: [], invalidFields: [] };
  return fromJson(parsed);
}

export async function readPaymentBody(req: IncomingMessage, limit: number): Promise<BodyResult> {
  if (req.readableEnded) return alreadyRead(req);
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return { ok: false, problem: 'too-large' };
  const type = mediaType(req);
  if (type === 'multipart/form-data') return fromMultipart(req, limit);
  const raw = await readLimited(req, limit);
  if (raw === undefined) return { ok: false, problem: 'too-large' };
  const text = raw.toString('utf8');
  if (type === 'application/json') {
    try {
      return fromJson(JSON.parse(text));
    } catch {
      return { ok: false, problem: 'malformed' };
    }
  }
  // No content type with no body reads as no fields, as the old service's form handling would.
  if (type === 'application/x-www-form-urlencoded' || (type === '' && raw.length === 0)) {
    const fields: Record<string, string> = {};
    for (const [name, value] of new URLSearchParams(text)) fields[name] = value;
    return { ok: true, fields, fileFields: [], invalidFields: [] };
  }
  return { ok: false, problem: 'unsupported' };
}
