// The hop-by-hop rule (RFC 9110 7.6.1): the fixed list plus what Connection names, whatever its case or
// spacing; the `close` and `keep-alive` options name no header.
import { describe, expect, it } from 'vitest';
import { hopByHopNames, namedInConnection } from '../../../../src/gateway/routes/hop-by-hop.js';

describe('namedInConnection', () => {
  it.each([
    [undefined, []],
    ['keep-alive', []],
    ['close', []],
    ['Keep-Alive', []],
    ['keep-alive, X-Client-Hop', ['x-client-hop']],
    [' , close,x-a ,  X-B,', ['x-a', 'x-b']],
  ])('Connection %j names %j', (connection, names) => {
    expect(namedInConnection(connection === undefined ? {} : { connection })).toEqual(names);
  });
});

describe('hopByHopNames', () => {
  it('is the fixed list, plus what Connection names, plus transfer-encoding when asked', () => {
    const fixed = ['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'upgrade'];
    expect(hopByHopNames({}, false)).toEqual(fixed);
    expect(hopByHopNames({ connection: 'x-a' }, true)).toEqual([...fixed, 'x-a', 'transfer-encoding']);
  });
});
