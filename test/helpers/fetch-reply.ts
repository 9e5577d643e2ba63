// One HTTP exchange read the way the tests compare replies: status, headers, the exact text, and the
// parsed JSON (undefined when the body is not JSON).
export interface Reply {
  status: number;
  headers: Headers;
  /** The body exactly as sent: key order matters. */
  text: string;
  body: unknown;
}

export async function fetchReply(url: string, init: RequestInit = {}): Promise<Reply> {
  const res = await fetch(url, init);
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, text, body };
}
