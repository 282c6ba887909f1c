import { describe, it, expect } from 'vitest';
import { classifyAddress, isAllowed, parseAllowList, parseIPv6, resolvedAddressProblem, webhookUrlProblem, type AddressKind } from './webhook-address';

describe('classifyAddress', () => {
  const cases: [string, AddressKind | null][] = [
    ['8.8.8.8', 'public'],
    ['93.184.216.34', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.1', 'public'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['100.64.0.1', 'shared'],
    ['100.128.0.1', 'public'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['::', 'unspecified'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['[::ffff:a9fe:a9fe]', 'link-local'],
    ['::ffff:8.8.8.8', 'public'],
    ['::ffff:0:127.0.0.1', 'loopback'],
    ['::127.0.0.1', 'loopback'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['64:ff9b::8.8.8.8', 'public'],
    ['2002:7f00:1::', 'loopback'],
    ['2002:0808:0808::1', 'public'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['fec0::1', 'private'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'reserved'],
    ['2606:4700:4700::1111', 'public'],
    ['2001:4860:4860::8888', 'public'],
    ['example.com', null],
    ['localhost', null],
    ['1.2.3', null],
    ['256.1.1.1', null],
    ['1::2::3', null],
    ['1:2:3:4:5:6:7:8:9', null],
  ];
  it.each(cases)('%s → %s', (s, want) => expect(classifyAddress(s)).toBe(want));

  it('parses IPv6 forms to the same groups', () => {
    expect(parseIPv6('::ffff:127.0.0.1')).toEqual(parseIPv6('0:0:0:0:0:ffff:7f00:0001'));
    expect(parseIPv6('[2001:db8::]')).toEqual([0x2001, 0xdb8, 0, 0, 0, 0, 0, 0]);
  });
});

describe('webhookUrlProblem (save time)', () => {
  const none = parseAllowList('');
  const refused: string[] = [
    'http://169.254.169.254/latest/meta-data/',
    'http://localhost:8080/hook',
    'http://LOCALHOST./hook',
    'http://api.localhost/hook',
    'http://[::1]/hook',
    'http://0x7f000001/hook', // the URL parser reads it as 127.0.0.1
    'http://2130706433/hook',
    'http://017700000001/hook',
    'http://127.1/hook',
    'http://0.0.0.0/hook',
    'http://[::ffff:127.0.0.1]/hook',
    'http://[::ffff:169.254.169.254]/hook',
    'http://[fc00::1]/hook',
    'http://[fd00:ec2::254]/hook',
    'http://[fe80::1]/hook',
    'http://10.0.0.5/hook',
    'http://192.168.0.10/hook',
    'http://172.20.0.2/hook',
    'http://100.100.100.200/hook', // Alibaba's metadata service (shared range)
    'http://[64:ff9b::a9fe:a9fe]/hook',
  ];
  it.each(refused)('refuses %s', (u) => expect(webhookUrlProblem(u, none)).toMatch(/must not point at .*SLUICE_WEBHOOK_ALLOW_HOSTS/));

  it.each(['https://hooks.example.com/x', 'http://8.8.8.8/hook', 'https://[2606:4700:4700::1111]/hook', 'https://internal.corp.example/x'])('accepts %s (a name is checked again when sending)', (u) =>
    expect(webhookUrlProblem(u, none)).toBeNull(),
  );

  it.each(['ftp://example.com/x', 'file:///etc/passwd', 'not a url', 'http://user:pw@example.com/'])('refuses %s as a URL', (u) =>
    expect(webhookUrlProblem(u, none)).toMatch(/URL|user name/),
  );

  it('the allow-list admits hosts, addresses and CIDRs, and nothing else', () => {
    const allow = parseAllowList('127.0.0.1, 10.0.0.0/8, hooks.internal, fd00::/8');
    expect(webhookUrlProblem('http://127.0.0.1:9999/x', allow)).toBeNull();
    expect(webhookUrlProblem('http://0x7f000001:9999/x', allow)).toBeNull();
    expect(webhookUrlProblem('http://[::ffff:127.0.0.1]/x', allow)).toBeNull();
    expect(webhookUrlProblem('http://10.9.8.7/x', allow)).toBeNull();
    expect(webhookUrlProblem('http://hooks.internal/x', allow)).toBeNull();
    expect(webhookUrlProblem('http://[fd12::1]/x', allow)).toBeNull();
    expect(webhookUrlProblem('http://127.0.0.2/x', allow)).not.toBeNull();
    expect(webhookUrlProblem('http://169.254.169.254/x', allow)).not.toBeNull();
    expect(webhookUrlProblem('http://[fc00::1]/x', allow)).not.toBeNull();
    expect(webhookUrlProblem('http://localhost/x', allow)).not.toBeNull();
  });

  it.each(['10.0.0.0/33', 'bad host!', '1.2.3.4/8/9', 'host/8'])('rejects the allow-list entry %s', (e) => expect(() => parseAllowList(e)).toThrow(RangeError));
});

describe('resolvedAddressProblem (send time: what the name resolved to)', () => {
  it('refuses a public name that resolves to an internal address (DNS rebinding), unless allowed', () => {
    expect(resolvedAddressProblem('rebind.example.com', '127.0.0.1', [])).toMatch(/loopback address \(127\.0\.0\.1\)/);
    expect(resolvedAddressProblem('rebind.example.com', '::ffff:169.254.169.254', [])).toMatch(/link-local/);
    expect(resolvedAddressProblem('hooks.example.com', '93.184.216.34', [])).toBeNull();
    expect(resolvedAddressProblem('hooks.internal', '10.1.1.1', parseAllowList('hooks.internal'))).toBeNull();
    expect(resolvedAddressProblem('x.example.com', '10.1.1.1', parseAllowList('10.0.0.0/8'))).toBeNull();
    expect(isAllowed('[::ffff:10.1.1.1]', parseAllowList('10.0.0.0/8'))).toBe(true);
  });
});
