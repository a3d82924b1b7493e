/** URL handling of outbound calls: percent-encoding of inserted values, browser normalization, params. */
import { OutboundError } from './errors';

// Lone surrogates cannot be percent-encoded (encodeURIComponent throws); a browser writes U+FFFD.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Percent-encodes a value inserted into a URL template, so it cannot add path segments, a query or a fragment. */
export function percentEncodeValue(text: string): string {
  return encodeURIComponent(text.replace(LONE_SURROGATE, '\uFFFD'));
}

/**
 * Parses a URL as a browser does (WHATWG URL: tabs and line breaks removed, non-ASCII hostname IDNA-encoded,
 * space, control and non-ASCII characters of path and query percent-encoded, numeric IPv4 forms written
 * as dotted decimal) and keeps only what may be called: http or https, a hostname, no credentials.
 * The fragment is dropped (it is never sent).
 */
export function normalizeUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundError('invalid_url', 'The request URL is not a valid URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new OutboundError('invalid_url', 'The request URL must start with http:// or https://.', { scheme: url.protocol.slice(0, -1) });
  }
  if (!url.hostname) throw new OutboundError('invalid_url', 'The request URL must name a hostname.');
  if (url.username || url.password) {
    throw new OutboundError('invalid_url', 'The request URL may not carry a user name or password.');
  }
  url.hash = '';
  return url;
}

/** A query or form value: text as it is, anything else as compact JSON. */
export function valueText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * Appends params to the URL's query string, keeping the query the URL already has byte for byte
 * (url.searchParams would re-encode it). Values that are undefined are left out. With `arrays: 'repeat'`
 * an array value repeats its name once per member (as a form's repeated field does); else it is JSON.
 */
export function appendParams(url: URL, params: Record<string, unknown> | undefined, arrays: 'json' | 'repeat' = 'json'): URL {
  if (!params) return url;
  const extra = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    const values = arrays === 'repeat' && Array.isArray(value) ? value : [value];
    for (const item of values) if (item !== undefined) extra.append(key, valueText(item));
  }
  const added = extra.toString();
  if (!added) return url;
  const next = new URL(url.href);
  next.search = next.search.length > 1 ? `${next.search.slice(1)}&${added}` : added;
  return next;
}
