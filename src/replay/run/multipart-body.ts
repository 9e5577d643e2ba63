// Encodes form fields as a multipart/form-data body (WHATWG HTML "multipart/form-data encoding algorithm",
// fields only), for replaying a call recorded as multipart whose recording kept the fields but not the
// original bytes. Pure and deterministic: the boundary is fixed, lengthened until no value contains it.

const CRLF = '\r\n';

/** A field name as a quoted Content-Disposition parameter: `"`, CR and LF percent-encoded, as browsers do. */
function quotedName(name: string): string {
  return `"${name.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A')}"`;
}

export function multipartFormBody(fields: ReadonlyArray<readonly [string, string]>): { body: string; contentType: string } {
  let boundary = '----legacy-gateway-replay';
  while (fields.some(([name, value]) => name.includes(boundary) || value.includes(boundary))) boundary += '-x';
  const parts = fields.map(([name, value]) => `--${boundary}${CRLF}Content-Disposition: form-data; name=${quotedName(name)}${CRLF}${CRLF}${value}${CRLF}`);
  return { body: `${parts.join('')}--${boundary}--${CRLF}`, contentType: `multipart/form-data; boundary=${boundary}` };
}
