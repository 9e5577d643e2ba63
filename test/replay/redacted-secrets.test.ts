// Which secrets a recorded request holds only as the redaction marker, in every form a recording keeps a
// body; never a real value, never the key the replay replaces anyway.
import { describe, expect, it } from 'vitest';
import { redactedSecretFields } from '../../src/replay/recordings/redacted-secrets.js';
import type { RecordedExchange, RecordedRequestBody } from '../../src/replay/recordings/recording.js';
import { parseJsonExact } from '../../src/shared/json-exact.js';

const request = (body: RecordedRequestBody | undefined, contentType = '', url = '/api/payment'): RecordedExchange['request'] => ({
  method: 'POST',
  url,
  headers: contentType === '' ? [] : [['Content-Type', contentType]],
  body,
});

describe('redactedSecretFields', () => {
  it('names the fields the gateway recorder redacted in a payment body (JSON fields), in order', () => {
    const body = parseJsonExact('{"client_id":"1","token":"[REDACTED]","password":"[REDACTED]","password2":"[REDACTED]","revenue_amount":"5.00"}');
    expect(redactedSecretFields(request({ kind: 'json', value: body }))).toEqual(['token', 'password', 'password2']);
    // A secret of another JSON type is redacted to the marker of that type.
    expect(redactedSecretFields(request({ kind: 'json', value: parseJsonExact('{"token":0,"password":{},"api_key":[]}') }))).toEqual(['token', 'password', 'api_key']);
  });

  it('reads form fields, urlencoded, JSON and multipart text', () => {
    expect(redactedSecretFields(request({ kind: 'form', fields: [['Token', '[REDACTED]'], ['a', '1']] }))).toEqual(['Token']);
    expect(redactedSecretFields(request({ kind: 'text', text: 'a=1&token=%5BREDACTED%5D&password=[REDACTED]' }, 'application/x-www-form-urlencoded'))).toEqual(['token', 'password']);
    expect(redactedSecretFields(request({ kind: 'text', text: 'a=1&token=[REDACTED]' }))).toEqual(['token']);
    expect(redactedSecretFields(request({ kind: 'text', text: '{"password2":"[REDACTED]"}' }, 'application/json'))).toEqual(['password2']);
    const multipart = ['--b', 'Content-Disposition: form-data; name="token"', '', '[REDACTED]', '--b', 'Content-Disposition: form-data; name="a"', '', '1', '--b--', ''].join('\r\n');
    expect(redactedSecretFields(request({ kind: 'text', text: multipart }, 'multipart/form-data; boundary=b'))).toEqual(['token']);
  });

  it('names a redacted secret in the query, except the key the replay replaces with its own', () => {
    expect(redactedSecretFields(request(undefined, '', '/api/payment?token=%5BREDACTED%5D&api_key=[REDACTED]'))).toEqual(['token']);
    expect(redactedSecretFields(request(undefined, '', 'https://old.example.com/api/clients/0/5?api_key=[REDACTED]'))).toEqual([]);
  });

  it('says nothing of real values, empty ones, or a body it cannot read', () => {
    expect(redactedSecretFields(request({ kind: 'text', text: 'token=tok_live_1&password=' }, 'application/x-www-form-urlencoded'))).toEqual([]);
    expect(redactedSecretFields(request({ kind: 'json', value: parseJsonExact('{"token":null,"password":"","note":"[REDACTED]"}') }))).toEqual([]);
    expect(redactedSecretFields(request({ kind: 'text', text: '{"token": "[REDACTED]"' }, 'application/json'))).toEqual([]);
    expect(redactedSecretFields(request(undefined))).toEqual([]);
  });
});
