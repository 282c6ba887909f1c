import { describe, it, expect } from 'vitest';
import { clientAddress, PEER_ADDRESS_HEADER } from './client-address';
import { PEER_ADDRESS_HEADER as SERVED_HEADER, peerAddress } from '../web/serve.mjs';

const h = (x: Record<string, string>) => new Headers(x);
const PEER = PEER_ADDRESS_HEADER;

describe('clientAddress', () => {
  const cases: [string, Record<string, string>, number, string][] = [
    ['behind our server: the TCP peer', { [PEER]: '10.0.0.7' }, 0, '10.0.0.7'],
    ["a client's own X-Forwarded-For is ignored", { [PEER]: '10.0.0.7', 'x-forwarded-for': '203.0.113.9' }, 0, '10.0.0.7'],
    ["a client's own X-Real-IP is ignored", { [PEER]: '10.0.0.7', 'x-real-ip': '203.0.113.9' }, 0, '10.0.0.7'],
    ['one trusted proxy: the address it appended', { [PEER]: '10.0.0.2', 'x-forwarded-for': '203.0.113.9, 198.51.100.4' }, 1, '198.51.100.4'],
    ['two trusted proxies: two hops back', { [PEER]: '10.0.0.2', 'x-forwarded-for': '203.0.113.9, 198.51.100.4, 10.0.0.1' }, 2, '198.51.100.4'],
    ['more hops trusted than entries: the first', { [PEER]: '10.0.0.2', 'x-forwarded-for': '198.51.100.4' }, 5, '198.51.100.4'],
    ['a trusted proxy that sent nothing: the peer', { [PEER]: '10.0.0.2' }, 1, '10.0.0.2'],
    ['served without our server: first X-Forwarded-For hop', { 'x-forwarded-for': '203.0.113.9, 10.0.0.1' }, 0, '203.0.113.9'],
    ['served without our server: X-Real-IP', { 'x-real-ip': ' 203.0.113.10 ' }, 0, '203.0.113.10'],
    ['nothing at all', {}, 0, 'unknown'],
    ['empty entries are skipped', { [PEER]: '10.0.0.2', 'x-forwarded-for': ' , 198.51.100.4 ,' }, 1, '198.51.100.4'],
  ];
  it.each(cases)('%s', (_name, headers, hops, want) => {
    expect(clientAddress(h(headers), hops)).toBe(want);
  });

  it('bounds what it returns', () => {
    expect(clientAddress(h({ [PEER]: 'x'.repeat(500) }))).toHaveLength(100);
  });
});

describe('the web server', () => {
  it('sets the header the app reads', () => {
    expect(SERVED_HEADER).toBe(PEER_ADDRESS_HEADER);
  });

  it.each([
    ['::ffff:127.0.0.1', '127.0.0.1'],
    ['127.0.0.1', '127.0.0.1'],
    ['::1', '::1'],
    ['2001:db8::5', '2001:db8::5'],
    [undefined, ''],
  ])('peer address of a socket at %s is %s', (remoteAddress, want) => {
    expect(peerAddress({ remoteAddress })).toBe(want);
  });
});
