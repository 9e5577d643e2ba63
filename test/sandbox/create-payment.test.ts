// POST /api/v1/payments: validation, 404s, discounts, packages, test tokens and the held (tok_timeout) reply.
import { describe, expect, it, vi } from 'vitest';
import { SANDBOX_TEST_TOKENS, startSandbox } from '../../src/sandbox/index.js';
import { call, errorText, postJson, PRIMARY, SECONDARY, useSandbox } from './harness.js';

const sandbox = useSandbox({ now: () => Date.UTC(2024, 6, 4, 9), paymentHangMs: 60_000 });

const pay = (body: unknown) => postJson(sandbox().url, '/api/v1/payments', body);

async function expectRefused(body: unknown, status: number, code: string, message: string): Promise<void> {
  const before = sandbox().state.payments.length;
  const r = await pay(body);
  expect(r.status, message).toBe(status);
  expect(r.text).toBe(errorText(code, message));
  expect(sandbox().state.payments).toHaveLength(before);
}

describe('POST /api/v1/payments', () => {
  it('records a payment: 201 with the record, listed afterwards', async () => {
    const { state, url } = sandbox();
    const nextId = Math.max(...state.payments.map((p) => p.id)) + 1;
    const r = await pay({ client_id: 1, amount: 40.95, send_email: 1, service_id: 1, discount_code: 'swim5', note: 'Lesson & towel', token: 'tok_visa', qb_customer_id: 77, timezone: 'America/Chicago' });
    expect(r.status).toBe(201);
    expect(r.text).toBe(
      JSON.stringify({
        object: 'payment', id: nextId, client_id: 1, service_id: 1, amount: 40.95, discount_code: 'SWIM5',
        note: 'Lesson & towel', send_email: 1, timezone: 'America/Chicago', status: 'completed', created: '2024-07-04',
      }),
    );
    expect(r.text).not.toContain('tok_visa');
    // The stored record holds the payment fields alone, in order: never the token or qb_customer_id.
    expect(JSON.stringify(state.payments.at(-1))).toBe(r.text);
    expect(JSON.stringify(state)).not.toContain('tok_visa');
    const one = await call(url, `/api/v1/payments/${String(nextId)}`, { headers: PRIMARY });
    expect(one.text).toBe(r.text);
  });

  it('defaults send_email to 0, service and discount to null and the time zone to America/New_York', async () => {
    const r = await pay({ client_id: 2, amount: 10 });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ client_id: 2, service_id: null, amount: 10, discount_code: null, note: null, send_email: 0, timezone: 'America/New_York' });
  });

  it('counts a use of the discount', async () => {
    const discount = sandbox().state.discounts.find((d) => d.code === 'WELCOME10');
    const before = discount?.uses ?? 0;
    expect((await pay({ client_id: 3, amount: 54, discount_code: 'WELCOME10', service_id: 4 })).status).toBe(201);
    expect(discount?.uses).toBe(before + 1);
  });

  it('validates the fields in order, naming the first bad one', async () => {
    await expectRefused({ amount: 10 }, 400, 'invalid_request', 'client_id is required');
    await expectRefused({ client_id: '1', amount: 10 }, 400, 'invalid_request', 'client_id must be an integer');
    await expectRefused({ client_id: 1.5, amount: 10 }, 400, 'invalid_request', 'client_id must be an integer');
    await expectRefused({ client_id: 1 }, 400, 'invalid_request', 'amount is required');
    await expectRefused({ client_id: 1, amount: 0 }, 400, 'invalid_request', 'amount must be a number greater than 0');
    await expectRefused({ client_id: 1, amount: -5 }, 400, 'invalid_request', 'amount must be a number greater than 0');
    await expectRefused({ client_id: 1, amount: '10.00' }, 400, 'invalid_request', 'amount must be a number greater than 0');
    await expectRefused({ client_id: 1, amount: 10, send_email: 2 }, 400, 'invalid_request', 'send_email must be 0 or 1');
    await expectRefused({ client_id: 1, amount: 10, service_id: 'x' }, 400, 'invalid_request', 'service_id must be an integer');
    await expectRefused({ client_id: 1, amount: 10, timezone: 'Moon/Base' }, 400, 'invalid_request', 'timezone must be a time zone name listed by /api/v1/timezones');
  });

  it('answers 404 not_found for an unknown client or service', async () => {
    await expectRefused({ client_id: 99_999, amount: 10 }, 404, 'not_found', 'no client with id 99999');
    await expectRefused({ client_id: 1, amount: 10, service_id: 999 }, 404, 'not_found', 'no service with id 999');
  });

  it('answers 400 naming discount_code for an unknown, inactive, used-up or other-service code', async () => {
    await expectRefused({ client_id: 1, amount: 10, discount_code: 'NOPE' }, 400, 'invalid_request', 'discount_code is not a valid discount code');
    await expectRefused({ client_id: 1, amount: 10, discount_code: 'SUMMER2023' }, 400, 'invalid_request', 'discount_code is not a valid discount code');
    await expectRefused({ client_id: 1, amount: 10, discount_code: 'FULLUP' }, 400, 'invalid_request', 'discount_code has reached its maximum number of uses');
    await expectRefused({ client_id: 1, amount: 10, discount_code: 'SWIM5' }, 400, 'invalid_request', 'discount_code is only valid for service 1');
    await expectRefused({ client_id: 1, amount: 10, discount_code: 'SWIM5', service_id: 4 }, 400, 'invalid_request', 'discount_code is only valid for service 1');
  });

  it('refuses package services (group_num above 1) with 409 conflict', async () => {
    for (const serviceId of [2, 3, 11]) {
      await expectRefused({ client_id: 1, amount: 210, service_id: serviceId }, 409, 'conflict', 'package payments cannot be made through the API');
    }
  });

  it('answers 402 for the declined and refused test tokens, recording nothing', async () => {
    await expectRefused({ client_id: 1, amount: 10, token: SANDBOX_TEST_TOKENS.declined.token }, 402, 'card_declined', 'the card was declined');
    await expectRefused({ client_id: 1, amount: 10, token: 'tok_refused' }, 402, 'payment_refused', 'the payment was refused by the processor');
  });

  it('is not allowed for the secondary key', async () => {
    const r = await postJson(sandbox().url, '/api/v1/payments', { client_id: 1, amount: 10 }, SECONDARY);
    expect(r.status).toBe(403);
  });

  it('records a tok_timeout payment at once but holds the reply', async () => {
    const { state, url } = sandbox();
    const before = state.payments.length;
    const abort = new AbortController();
    const reply = fetch(`${url}/api/v1/payments`, {
      method: 'POST',
      headers: { ...PRIMARY, 'Content-Type': 'application/json' },
      body: JSON.stringify({ client_id: 4, amount: 12.5, token: 'tok_timeout' }),
      signal: abort.signal,
    });
    let settled = false;
    void reply.then(() => (settled = true), () => (settled = true));
    await vi.waitFor(() => expect(state.payments).toHaveLength(before + 1), { timeout: 15_000, interval: 5 });
    expect(state.payments.at(-1)).toMatchObject({ client_id: 4, amount: 12.5, status: 'completed' });
    expect(settled).toBe(false);
    abort.abort();
    await expect(reply).rejects.toThrow();
  });
});

describe('tok_timeout with a short hang, and close()', () => {
  it('answers 201 once paymentHangMs has passed', async () => {
    const running = await startSandbox({ paymentHangMs: 20 });
    try {
      const r = await postJson(running.url, '/api/v1/payments', { client_id: 1, amount: 5, token: 'tok_timeout' });
      expect(r.status).toBe(201);
      expect(r.body).toMatchObject({ client_id: 1, amount: 5, status: 'completed' });
    } finally {
      await running.close();
    }
  });

  it('ends a held reply and keep-alive sockets on close(), without waiting for them', async () => {
    // The reply is held for an hour: a close() that waited for it would end the test by its timeout, so no
    // clock needs to be read here.
    const running = await startSandbox({ paymentHangMs: 3_600_000 });
    // An idle keep-alive socket: a completed request on a pooled connection.
    expect((await call(running.url, '/api/v1/timezones/1', { headers: PRIMARY })).status).toBe(200);
    const held = fetch(`${running.url}/api/v1/payments`, {
      method: 'POST',
      headers: { ...PRIMARY, 'Content-Type': 'application/json' },
      body: JSON.stringify({ client_id: 1, amount: 5, token: 'tok_timeout' }),
    });
    const outcome = held.then(() => 'answered', () => 'failed');
    await vi.waitFor(() => expect(running.state.payments.some((p) => p.amount === 5 && p.client_id === 1)).toBe(true), {
      timeout: 15_000,
      interval: 5,
    });
    await running.close();
    expect(await outcome).toBe('failed');
  });
});
