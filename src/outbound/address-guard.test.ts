import { describe, expect, it } from 'vitest';
import { privateHostRefusal } from './address-guard';
import { normalizeUrl } from './url';

/** The refusal for a host as written in a URL, after browser normalization. */
const refusalFor = (host: string) => privateHostRefusal(normalizeUrl(`http://${host}/`).hostname);

describe('private-address guard', () => {
  it('refuses loopback in every IPv4 form WHATWG URL parsing accepts', () => {
    for (const host of [
      '127.0.0.1',
      '127.1',
      '0x7f.1',
      '0x7f.0.0.1',
      '2130706433',
      '0177.0.0.1',
      '0x7f000001',
      '127.255.255.254',
      '127.0.0.1.',
      '%31%32%37.0.0.1',
    ]) {
      expect(refusalFor(host), host).toMatch(/loopback/);
    }
  });

  it('refuses loopback written with percent-encoded, fullwidth or ideographic dots, mixed case or one trailing dot', () => {
    for (const host of [
      '127.0.0.1.',
      '0x7f.1.',
      '2130706433.',
      '0X7F.1',
      '0x7F.0.0.1.',
      '127%2e0%2e0%2e1',
      '127%2E0.0.1%2e',
      '127。0。0。1',
      '127．0．0．1',
      '127｡0｡0｡1',
      '127。0。0。1。',
      '１２７.0.0.1',
    ]) {
      expect(refusalFor(host), host).toMatch(/^127\.0\.0\.1 is a loopback address$/);
    }
  });

  it('refuses an address written with more than one trailing dot, which URL parsing leaves as a name, as the address it reads as', () => {
    const spellings = [
      '127.0.0.1..',
      '127.0.0.1...',
      '127.1..',
      '0x7f.1..',
      '0X7F.1..',
      '2130706433..',
      '0177.0.0.1..',
      '127.0.0.1%2e%2e',
      '127.0.0.1.%2E',
      '127。0。0。1。。',
      '127．0．0．1．．',
      '127.0.0.1.。',
    ];
    for (const host of spellings) {
      const hostname = normalizeUrl(`http://${host}/`).hostname;
      expect(hostname, host).toMatch(/\.\.$/);
      expect(refusalFor(host), host).toBe(`127.0.0.1 is a loopback address (written ${hostname})`);
    }
    expect(refusalFor('10.0.0.1..')).toMatch(/^10\.0\.0\.1 is a private address/);
    expect(refusalFor('169.254.169.254..')).toMatch(/linkLocal/);
  });

  it('refuses local-only names written with extra dots or in mixed case', () => {
    for (const host of ['localhost..', 'LocalHost..', 'api.localhost..', '.localhost', 'printer.local..', 'metadata.google.internal..', 'intranet..']) {
      expect(refusalFor(host), host).toBeDefined();
    }
  });

  it('refuses a hostname with an empty label: leading, inside, or more than one trailing dot', () => {
    for (const host of ['a..b.com', '.example.com', 'example.com..', 'example.com...', 'api..example.com.', 'example。。com', 'example.com%2e%2e', '.', '..']) {
      expect(refusalFor(host), host).toMatch(/has an empty label/);
    }
  });

  it('refuses private, link-local (cloud metadata), CGNAT, unspecified, broadcast, multicast and reserved IPv4', () => {
    const cases: [string, RegExp][] = [
      ['10.0.0.1', /private/],
      ['172.16.5.4', /private/],
      ['192.168.1.1', /private/],
      ['169.254.169.254', /linkLocal/],
      ['100.64.0.1', /carrierGradeNat/],
      ['0.0.0.0', /unspecified/],
      ['0', /unspecified/],
      ['0.1.2.3', /unspecified/],
      ['255.255.255.255', /broadcast/],
      ['224.0.0.1', /multicast/],
      ['192.0.2.1', /reserved/],
      ['198.18.0.1', /reserved/],
      ['240.0.0.1', /reserved/],
    ];
    for (const [host, why] of cases) expect(refusalFor(host), host).toMatch(why);
  });

  it('refuses loopback, unspecified, link-local, unique-local, multicast and site-local IPv6', () => {
    for (const host of ['[::1]', '[::]', '[fe80::1]', '[fc00::1]', '[fd12:3456::1]', '[ff02::1]', '[fec0::1]', '[0:0:0:0:0:0:0:1]']) {
      expect(refusalFor(host), host).toBeDefined();
    }
  });

  it('refuses IPv6 forms that embed an IPv4 address: mapped, compatible, NAT64, 6to4, Teredo', () => {
    for (const host of [
      '[::ffff:127.0.0.1]',
      '[::ffff:7f00:1]',
      '[::ffff:10.0.0.1]',
      '[::ffff:0:127.0.0.1]',
      '[::127.0.0.1]',
      '[64:ff9b::127.0.0.1]',
      '[64:ff9b:1::a00:1]',
      '[2002:7f00:1::1]',
      '[2001:0:4136:e378:8000:63bf:3fff:fdd2]',
    ]) {
      expect(refusalFor(host), host).toBeDefined();
    }
  });

  it('refuses documentation and benchmarking IPv6 ranges', () => {
    for (const host of ['[2001:db8::1]', '[2001:2::1]']) expect(refusalFor(host), host).toBeDefined();
  });

  it('refuses localhost, *.localhost, *.local, *.internal, *.home.arpa and single-label names', () => {
    for (const host of [
      'localhost',
      'LOCALHOST',
      'localhost.',
      'api.localhost',
      'printer.local',
      'metadata.google.internal',
      'router.home.arpa',
      'intranet',
      'metadata',
    ]) {
      expect(refusalFor(host), host).toBeDefined();
    }
  });

  it('allows public names and public addresses', () => {
    for (const host of [
      'api.example.com',
      'example.com.',
      'xn--bcher-kva.example',
      '8.8.8.8',
      '1.1.1.1',
      '172.32.0.1',
      '100.128.0.1',
      '[2606:4700:4700::1111]',
      '[2001:4860:4860::8888]',
      'localhost.example.com',
      'internal.example.com',
    ]) {
      expect(refusalFor(host), host).toBeUndefined();
    }
  });

  it('parses non-canonical IPv4 forms itself when given a raw hostname', () => {
    expect(privateHostRefusal('0x7f.1')).toMatch(/loopback/);
    expect(privateHostRefusal('2130706433')).toMatch(/loopback/);
    expect(privateHostRefusal('127.1..')).toMatch(/loopback/);
    expect(privateHostRefusal('0X7F.1...')).toMatch(/loopback/);
    expect(privateHostRefusal('a..b.com')).toMatch(/empty label/);
  });
});
