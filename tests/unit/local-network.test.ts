// The one test of "local" (core/net/local-network.ts): every case the code's earlier definitions
// had (the web plugin's, the MCP guard's, the providers' loopback check, the search endpoints'
// loopback check), and the spellings a URL parser or a resolver may hand it.
import { describe, expect, test } from 'vitest';
import { addressKind, hostKind, isLocalNetworkUrl, isLoopbackHost, localNetworkKind, type LocalNetworkKind } from '@/core/net/local-network';
import { originOf, sameOrigin } from '@/core/net/origin';

describe('addresses, as DNS and webRequest give them', () => {
  const cases: Array<[string, LocalNetworkKind | null]> = [
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback'],
    ['127.255.255.255', 'loopback'],
    ['0.0.0.0', 'loopback'],
    ['0.1.2.3', 'loopback'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['::', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::127.0.0.1', 'loopback'], // IPv4-compatible
    ['10.1.2.3', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.20.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.1', 'private'],
    ['100.64.0.1', 'private'],
    ['100.127.255.255', 'private'],
    ['fc00::1', 'private'],
    ['fd12::5', 'private'],
    ['FD12::5', 'private'],
    ['::ffff:192.168.0.1', 'private'],
    ['::ffff:a00:1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf::1', 'link-local'],
    ['::ffff:169.254.1.1', 'link-local'],
    // Other spellings of IPv4 (what a URL parser reads as an address).
    ['2130706433', 'loopback'],
    ['0x7f.1', 'loopback'],
    ['0177.0.0.1', 'loopback'],
    ['0xa000001', 'private'],
    // Public.
    ['8.8.8.8', null],
    ['1.1.1.1', null],
    ['172.15.255.255', null],
    ['172.32.0.1', null],
    ['100.63.255.255', null],
    ['100.128.0.1', null],
    ['169.253.1.1', null],
    ['192.169.0.1', null],
    ['11.0.0.1', null],
    ['2001:db8::1', null],
    ['fe00::1', null],
    ['fec0::1', null],
    ['::ffff:8.8.8.8', null],
    // Not an address at all: names are for hostKind.
    ['localhost', null],
    ['example.com', null],
    ['', null],
    ['1.2.3.4.5', null],
    ['256.1.1.1', null],
  ];
  for (const [ip, kind] of cases) test(`${ip || '(empty)'} → ${kind}`, () => expect(addressKind(ip)).toBe(kind));
});

describe('names, as URL.hostname gives them (and as others may)', () => {
  const cases: Array<[string, LocalNetworkKind | null]> = [
    ['localhost', 'loopback'],
    ['LOCALHOST', 'loopback'],
    ['localhost.', 'loopback'],
    ['api.localhost', 'loopback'],
    ['127.0.0.1', 'loopback'],
    ['127.0.0.1.', 'loopback'],
    ['0.0.0.0', 'loopback'],
    ['[::1]', 'loopback'],
    ['::1', 'loopback'], // bare, as the providers' check took it
    ['[::]', 'loopback'],
    ['[::ffff:7f00:1]', 'loopback'],
    ['2130706433', 'loopback'],
    ['0x7f000001', 'loopback'],
    ['0x7f.0.0.1', 'loopback'],
    ['0177.0.0.1', 'loopback'],
    ['127.1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['[fd00::1]', 'private'],
    ['fd00::1', 'private'],
    ['[fe80::1%25eth0]', 'link-local'],
    ['[::ffff:c0a8:101]', 'private'],
    ['printer.local', 'private'],
    ['db.internal', 'private'],
    ['nas.lan', 'private'],
    ['tv.home.arpa', 'private'],
    ['169.254.169.254', 'link-local'],
    ['[fe80::1]', 'link-local'],
    ['router', 'single-label'],
    ['router.', 'single-label'],
    ['', 'single-label'],
    ['[not-an-address]', 'single-label'],
    ['example.com', null],
    ['127.0.0.1.nip.io', null], // judged by name: what it resolves to is addressKind's
    ['localhost.example.com', null],
    ['mylocalhost', 'single-label'],
    ['8.8.8.8', null],
    ['[2001:db8::1]', null],
  ];
  for (const [host, kind] of cases) test(`${host || '(empty)'} → ${kind}`, () => expect(hostKind(host)).toBe(kind));
});

describe('URLs', () => {
  test('the URL parser has already turned other IPv4 spellings into dotted ones', () => {
    for (const url of ['http://2130706433/', 'http://0x7f.1/', 'http://0177.0.0.1/', 'http://127.1/', 'http://[::ffff:127.0.0.1]/']) {
      expect(localNetworkKind(url), url).toBe('loopback');
    }
    expect(localNetworkKind('http://192.168.1.1/admin')).toBe('private');
    expect(localNetworkKind('http://router/')).toBe('single-label');
    expect(localNetworkKind('https://example.com/')).toBe(null);
    expect(localNetworkKind('not a url')).toBe(null);
    expect(isLocalNetworkUrl(new URL('http://localhost:11434/'))).toBe(true);
    expect(isLocalNetworkUrl('https://example.com/')).toBe(false);
  });
});

describe('isLoopbackHost: where plain http:// may carry a key or a token', () => {
  test('this computer only', () => {
    for (const host of ['localhost', 'api.localhost', 'localhost.', '127.0.0.1', '127.8.9.10', '0.0.0.0', '[::1]', '::1', '[::]', '[::ffff:7f00:1]', '2130706433']) {
      expect(isLoopbackHost(host), host).toBe(true);
    }
    for (const host of ['192.168.1.1', '10.0.0.1', '[fd00::1]', 'router', 'example.com', '127.0.0.1.evil.example', 'localhost.evil.example', '']) {
      expect(isLoopbackHost(host), host).toBe(false);
    }
  });
});

describe('originOf and sameOrigin: the one definition of a site', () => {
  test('http(s) only; the port when it is not the default', () => {
    expect(originOf('https://mail.example/inbox?x=1#y')).toBe('https://mail.example');
    expect(originOf('http://localhost:8080/a')).toBe('http://localhost:8080');
    expect(originOf('https://example.com:443/')).toBe('https://example.com');
    expect(originOf(new URL('https://EXAMPLE.com/'))).toBe('https://example.com');
    for (const other of ['file:///etc/passwd', 'chrome-extension://abc/x.html', 'javascript:alert(1)', 'about:blank', 'not a url', '', undefined]) {
      expect(originOf(other), String(other)).toBe('');
    }
  });

  test('same scheme, host and port; never for what has no origin', () => {
    expect(sameOrigin('https://a.example/x', 'https://a.example/y?z')).toBe(true);
    expect(sameOrigin('https://a.example/', new URL('https://a.example:443/'))).toBe(true);
    expect(sameOrigin('https://a.example/', 'http://a.example/')).toBe(false);
    expect(sameOrigin('https://a.example/', 'https://a.example:8443/')).toBe(false);
    expect(sameOrigin('https://a.example/', 'https://b.a.example/')).toBe(false);
    expect(sameOrigin('file:///a', 'file:///a')).toBe(false);
    expect(sameOrigin(undefined, undefined)).toBe(false);
    expect(sameOrigin('garbage', 'garbage')).toBe(false);
  });
});
