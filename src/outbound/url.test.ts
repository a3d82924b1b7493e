import { describe, expect, it } from 'vitest';
import { OutboundError } from './errors';
import { appendParams, normalizeUrl, percentEncodeValue, valueText } from './url';

const reasonOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return error instanceof OutboundError ? error.reason : String(error);
  }
  return 'no error';
};

describe('URL normalization (as a browser does)', () => {
  it('removes tabs and line breaks and trims spaces and controls around the URL', () => {
    expect(normalizeUrl(' \thttps://api.exa\nmple.com/a\tb\r\nc?x=1\n ').href).toBe('https://api.example.com/abc?x=1');
  });

  it('IDNA-encodes a non-ASCII hostname and lowercases it', () => {
    expect(normalizeUrl('https://Bücher.Example/').hostname).toBe('xn--bcher-kva.example');
  });

  it('percent-encodes space, control and non-ASCII characters in path and query', () => {
    expect(normalizeUrl('https://a.example/a b/é\u0001?q=ü x').href).toBe('https://a.example/a%20b/%C3%A9%01?q=%C3%BC%20x');
  });

  it('writes numeric IPv4 hosts as dotted decimal, reading percent-encoded, fullwidth and ideographic dots and one trailing dot', () => {
    for (const host of [
      '127.1',
      '0x7f.1',
      '0X7F.1',
      '2130706433',
      '0177.0.0.1',
      '0x7f000001',
      '127.0.0.1.',
      '127%2e0%2e0%2e1',
      '127。0。0。1',
      '127．0．0．1',
      '127｡0｡0｡1',
      '127。0。0。1。',
      '１２７.0.0.1',
    ]) {
      expect(normalizeUrl(`http://${host}/`).hostname, host).toBe('127.0.0.1');
    }
  });

  it('leaves an IPv4 host with more than one trailing dot as a name (the address guard reads it as the address)', () => {
    for (const [host, hostname] of [
      ['127.0.0.1..', '127.0.0.1..'],
      ['127.1..', '127.1..'],
      ['0X7F.1..', '0x7f.1..'],
      ['127.0.0.1.%2E', '127.0.0.1..'],
      ['127。0。0。1。。', '127.0.0.1..'],
    ]) {
      expect(normalizeUrl(`http://${host}:8080/`).hostname, host).toBe(hostname);
    }
  });

  it('refuses an IPv4 host with a leading dot or an empty part inside (invalid_url)', () => {
    for (const host of ['.127.0.0.1', '..127.0.0.1', '127..0.1', '%2e127.0.0.1']) {
      expect(
        reasonOf(() => normalizeUrl(`http://${host}/`)),
        host,
      ).toBe('invalid_url');
    }
  });

  it('drops the fragment, which is never sent', () => {
    expect(normalizeUrl('https://a.example/p?q=1#frag').href).toBe('https://a.example/p?q=1');
  });

  it('refuses what is not an http(s) URL with a hostname, and URLs with credentials (invalid_url)', () => {
    for (const bad of [
      'not a url',
      'ftp://a.example/',
      'file:///etc/passwd',
      'javascript:alert(1)',
      'https://',
      'http://ex ample.com/',
      'https://user:pw@a.example/',
    ]) {
      expect(reasonOf(() => normalizeUrl(bad))).toBe('invalid_url');
    }
  });
});

describe('values inserted into a URL', () => {
  it('are percent-encoded so they cannot add a path segment, a query or a fragment', () => {
    expect(percentEncodeValue('a/b?c=d&e#f g')).toBe('a%2Fb%3Fc%3Dd%26e%23f%20g');
  });

  it('write a lone surrogate as U+FFFD instead of failing', () => {
    expect(percentEncodeValue('x\uD800y')).toBe('x%EF%BF%BDy');
  });
});

describe('params', () => {
  it('are appended to the query string, keeping the query the URL already has byte for byte', () => {
    const url = normalizeUrl("https://a.example/p?keep=a%20b&q='x'");
    expect(appendParams(url, { k: 'v w', n: 2 }).href).toBe('https://a.example/p?keep=a%20b&q=%27x%27&k=v+w&n=2');
  });

  it('send a non-text value as compact JSON', () => {
    const url = appendParams(normalizeUrl('https://a.example/'), { obj: { a: [1, true] }, nil: null, flag: false });
    expect(url.searchParams.get('obj')).toBe('{"a":[1,true]}');
    expect(url.searchParams.get('nil')).toBe('null');
    expect(url.searchParams.get('flag')).toBe('false');
    expect(valueText('text')).toBe('text');
  });

  it('leave the URL alone when there are none', () => {
    expect(appendParams(normalizeUrl('https://a.example/p?x=1'), {}).href).toBe('https://a.example/p?x=1');
    expect(appendParams(normalizeUrl('https://a.example/p'), undefined).href).toBe('https://a.example/p');
  });
});
