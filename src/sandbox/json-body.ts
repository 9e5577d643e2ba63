// Reads a v1 request body: JSON only (`Content-Type: application/json`), at most 256 KB (v1's API reference,
// Endpoints rule 1). The limit is checked on Content-Length before reading and again on the bytes that
// actually arrive, so a chunked body cannot slip past it. It must never log or keep the body: it can hold
// a password or a card token.
import type { IncomingMessage } from 'node:http';
import { SandboxError } from './errors.js';

export const MAX_BODY_BYTES = 256 * 1024;

function tooLarge(): SandboxError {
  // Connection: close, because the rest of an oversized body is not read and the socket cannot be reused.
  return new SandboxError('payload_too_large', `request body is over ${String(MAX_BODY_BYTES / 1024)} KB`, {
    Connection: 'close',
  });
}

function isJsonMediaType(contentType: string | undefined): boolean {
  const mediaType = (contentType ?? '').split(';')[0]?.trim().toLowerCase();
  return mediaType === 'application/json';
}

function readBytes(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const cleanup = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer): void => {
      total += chunk.length;
      if (total > maxBytes) {
        cleanup();
        // Keep draining (discarding) so the 413 reply can be written while the client is still sending.
        req.resume();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      resolve(Buffer.concat(chunks));
    };
    const onError = (error: Error): void => {
      cleanup();
      reject(error);
    };
    const onClose = (): void => {
      cleanup();
      reject(new Error('request aborted'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

/** The body as a JSON object; throws 413 payload_too_large or 400 invalid_request. */
export async function readJsonObject(req: IncomingMessage, maxBytes = MAX_BODY_BYTES): Promise<Record<string, unknown>> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > maxBytes) throw tooLarge();
  if (!isJsonMediaType(req.headers['content-type'])) {
    throw new SandboxError('invalid_request', 'Content-Type must be application/json');
  }
  const bytes = await readBytes(req, maxBytes);
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    throw new SandboxError('invalid_request', 'request body is not valid JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new SandboxError('invalid_request', 'request body must be a JSON object');
  }
  return parsed as Record<string, unknown>;
}
