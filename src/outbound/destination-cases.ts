/**
 * The Destinations matcher as a table: each row a key's Destinations, a request URL as the caller wrote it,
 * and the verdict. destinations.test.ts checks every row against destinationVerdict; end-to-end tests drive
 * the same rows through the Worker (req, forwarding). Hosts are examples: a row that is allowed would be
 * sent to them, so an end-to-end test drives the refused rows, or asks for verdicts without sending.
 */
import type { DestinationRefusal } from './destinations';

export interface DestinationCase {
  /** The rule the row checks, in words. */
  rule: string;
  destinations: readonly string[];
  url: string;
  verdict: 'allowed' | DestinationRefusal;
}

const API = ['https://api.example.com/v1'];
const OPENAI = ['https://api.openai.com/v1'];
const WILDCARD = ['https://*.example.com'];

export const DESTINATION_CASES: readonly DestinationCase[] = [
  // No Destinations: any URL (the address guard still applies elsewhere).
  { rule: 'no destinations allow any url', destinations: [], url: 'https://anything.example.net/x', verdict: 'allowed' },
  { rule: 'no destinations: the raw-text refusals do not apply', destinations: [], url: 'https://anything.example.net/a/../b', verdict: 'allowed' },

  // Scheme.
  { rule: 'same scheme', destinations: API, url: 'https://api.example.com/v1/x', verdict: 'allowed' },
  { rule: 'http is not https', destinations: API, url: 'http://api.example.com/v1/x', verdict: 'not_listed' },
  { rule: 'https is not http', destinations: ['http://api.example.com/v1'], url: 'https://api.example.com/v1/x', verdict: 'not_listed' },
  { rule: "the scheme's case does not matter", destinations: API, url: 'HTTPS://api.example.com/v1/x', verdict: 'allowed' },
  { rule: 'a url that is not http(s) matches nothing', destinations: API, url: 'ftp://api.example.com/v1/x', verdict: 'not_listed' },
  { rule: 'a relative url matches nothing', destinations: API, url: '/v1/x', verdict: 'not_listed' },

  // Host.
  { rule: 'host case ignored (request)', destinations: API, url: 'https://API.Example.COM/v1/x', verdict: 'allowed' },
  { rule: 'host case ignored (destination)', destinations: ['https://Api.EXAMPLE.com/v1'], url: 'https://api.example.com/v1/x', verdict: 'allowed' },
  { rule: 'a host that only starts with the destination host', destinations: API, url: 'https://api.example.com.evil.net/v1', verdict: 'not_listed' },
  { rule: 'a host that only ends with the destination host', destinations: API, url: 'https://evilapi.example.com/v1', verdict: 'not_listed' },
  { rule: 'a subdomain of an exact host', destinations: API, url: 'https://eu.api.example.com/v1', verdict: 'not_listed' },
  { rule: 'the parent of an exact host', destinations: API, url: 'https://example.com/v1', verdict: 'not_listed' },
  { rule: 'a trailing dot is another host', destinations: API, url: 'https://api.example.com./v1', verdict: 'not_listed' },
  { rule: 'a percent-encoded host compares decoded', destinations: API, url: 'https://api%2Eexample.com/v1/x', verdict: 'allowed' },

  // Wildcard.
  { rule: '*. admits a subdomain', destinations: WILDCARD, url: 'https://api.example.com/x', verdict: 'allowed' },
  { rule: '*. admits a deeper subdomain', destinations: WILDCARD, url: 'https://eu.api.example.com/x', verdict: 'allowed' },
  { rule: '*. does not admit the apex', destinations: WILDCARD, url: 'https://example.com/x', verdict: 'not_listed' },
  { rule: '*. ignores case', destinations: WILDCARD, url: 'https://API.EXAMPLE.COM/x', verdict: 'allowed' },
  { rule: '*. is a label boundary', destinations: WILDCARD, url: 'https://notexample.com/x', verdict: 'not_listed' },
  { rule: '*. does not admit a longer domain', destinations: WILDCARD, url: 'https://api.example.com.evil.net/x', verdict: 'not_listed' },
  { rule: '*. keeps the scheme', destinations: WILDCARD, url: 'http://api.example.com/x', verdict: 'not_listed' },
  { rule: '*. keeps the port', destinations: WILDCARD, url: 'https://api.example.com:8443/x', verdict: 'not_listed' },
  { rule: '*. with a path: inside', destinations: ['https://*.example.com/v1'], url: 'https://api.example.com/v1/x', verdict: 'allowed' },
  { rule: '*. with a path: outside', destinations: ['https://*.example.com/v1'], url: 'https://api.example.com/v10', verdict: 'not_listed' },

  // Port.
  { rule: 'https 443 written in the request', destinations: API, url: 'https://api.example.com:443/v1/x', verdict: 'allowed' },
  { rule: 'https 443 written in the destination', destinations: ['https://api.example.com:443/v1'], url: 'https://api.example.com/v1/x', verdict: 'allowed' },
  { rule: 'http 80 written in the request', destinations: ['http://api.example.com/'], url: 'http://api.example.com:80/x', verdict: 'allowed' },
  { rule: 'http 80 written in the destination', destinations: ['http://api.example.com:80/'], url: 'http://api.example.com/x', verdict: 'allowed' },
  { rule: 'another port in the request', destinations: API, url: 'https://api.example.com:8443/v1/x', verdict: 'not_listed' },
  {
    rule: 'a port in the destination, none in the request',
    destinations: ['https://api.example.com:8443/v1'],
    url: 'https://api.example.com/v1/x',
    verdict: 'not_listed',
  },
  { rule: 'the same explicit port', destinations: ['https://api.example.com:8443/v1'], url: 'https://api.example.com:8443/v1/x', verdict: 'allowed' },
  { rule: '443 is not the default of http', destinations: ['http://api.example.com/'], url: 'http://api.example.com:443/x', verdict: 'not_listed' },

  // IPv6 hosts.
  {
    rule: 'IPv6 with a port, written another way',
    destinations: ['http://[2001:db8::1]:8080/v1'],
    url: 'http://[2001:DB8:0:0::1]:8080/v1/x',
    verdict: 'allowed',
  },
  { rule: 'IPv6 without the port', destinations: ['http://[2001:db8::1]:8080/v1'], url: 'http://[2001:db8::1]/v1/x', verdict: 'not_listed' },
  { rule: 'another IPv6 address', destinations: ['http://[2001:db8::1]:8080/v1'], url: 'http://[2001:db8::2]:8080/v1/x', verdict: 'not_listed' },
  { rule: 'IPv6 with the default port written', destinations: ['https://[2001:db8::1]/'], url: 'https://[2001:db8::1]:443/x', verdict: 'allowed' },

  // Path.
  { rule: 'the path itself', destinations: OPENAI, url: 'https://api.openai.com/v1', verdict: 'allowed' },
  { rule: 'the path with a trailing slash', destinations: OPENAI, url: 'https://api.openai.com/v1/', verdict: 'allowed' },
  { rule: 'a path under it', destinations: OPENAI, url: 'https://api.openai.com/v1/chat/completions', verdict: 'allowed' },
  { rule: 'a prefix that is not at a / boundary', destinations: OPENAI, url: 'https://api.openai.com/v10', verdict: 'not_listed' },
  { rule: 'a longer segment', destinations: OPENAI, url: 'https://api.openai.com/v1x/chat', verdict: 'not_listed' },
  { rule: 'another path', destinations: OPENAI, url: 'https://api.openai.com/dashboard', verdict: 'not_listed' },
  { rule: 'the root of a host whose destination has a path', destinations: OPENAI, url: 'https://api.openai.com/', verdict: 'not_listed' },
  { rule: 'paths are case-sensitive', destinations: OPENAI, url: 'https://api.openai.com/V1/chat', verdict: 'not_listed' },
  { rule: 'an encoded slash is not a boundary', destinations: OPENAI, url: 'https://api.openai.com/v1%2Fchat', verdict: 'not_listed' },
  {
    rule: 'a destination ending in / admits what is under it',
    destinations: ['https://api.openai.com/v1/'],
    url: 'https://api.openai.com/v1/chat',
    verdict: 'allowed',
  },
  { rule: 'a destination ending in / admits itself', destinations: ['https://api.openai.com/v1/'], url: 'https://api.openai.com/v1/', verdict: 'allowed' },
  {
    rule: 'a destination ending in / does not admit the path without it',
    destinations: ['https://api.openai.com/v1/'],
    url: 'https://api.openai.com/v1',
    verdict: 'not_listed',
  },
  {
    rule: 'a destination without a path admits every path',
    destinations: ['https://api.example.com'],
    url: 'https://api.example.com/any/path',
    verdict: 'allowed',
  },
  { rule: 'a destination without a path admits the bare host', destinations: ['https://api.example.com'], url: 'https://api.example.com', verdict: 'allowed' },
  { rule: 'a destination of / admits every path', destinations: ['https://api.example.com/'], url: 'https://api.example.com/any/path', verdict: 'allowed' },
  { rule: 'non-ASCII paths compare encoded', destinations: ['https://api.example.com/café'], url: 'https://api.example.com/caf%C3%A9/x', verdict: 'allowed' },
  { rule: 'an @ in the path is not user info', destinations: API, url: 'https://api.example.com/v1/users/@me', verdict: 'allowed' },
  { rule: 'dots inside a segment are not a dot segment', destinations: API, url: 'https://api.example.com/v1/a..b/.well-known/...', verdict: 'allowed' },

  // Query and fragment.
  { rule: 'the token in the query', destinations: OPENAI, url: 'https://api.openai.com/v1/chat?key=$CLIENT_SECRET', verdict: 'allowed' },
  { rule: 'the query is not compared (outside stays outside)', destinations: OPENAI, url: 'https://api.openai.com/v10?path=/v1', verdict: 'not_listed' },
  { rule: 'the query is not compared (destination with a query-less path)', destinations: OPENAI, url: 'https://api.openai.com/v1?x=1', verdict: 'allowed' },
  { rule: 'dots in the query are not segments', destinations: OPENAI, url: 'https://api.openai.com/v1/x?next=../../admin', verdict: 'allowed' },
  { rule: 'the fragment is not compared', destinations: OPENAI, url: 'https://api.openai.com/v1/x#part', verdict: 'allowed' },
  { rule: 'the fragment does not admit', destinations: OPENAI, url: 'https://api.openai.com/v10#/v1', verdict: 'not_listed' },
  { rule: 'the token in the path, after the host', destinations: API, url: 'https://api.example.com/v1/$CLIENT_SECRET/x', verdict: 'allowed' },

  // Raw text: user info.
  { rule: 'a user name', destinations: API, url: 'https://name@api.example.com/v1', verdict: 'userinfo' },
  { rule: 'a password only', destinations: API, url: 'https://:pw@api.example.com/v1', verdict: 'userinfo' },
  { rule: 'an empty user info', destinations: API, url: 'https://@api.example.com/v1', verdict: 'userinfo' },
  { rule: 'the listed host as user info', destinations: API, url: 'https://api.example.com@evil.net/v1', verdict: 'userinfo' },
  { rule: 'the token as user info', destinations: API, url: 'https://$CLIENT_SECRET@api.example.com/v1', verdict: 'userinfo' },

  // Raw text: spaces.
  { rule: 'a space in the path', destinations: API, url: 'https://api.example.com/v1/a b', verdict: 'space' },
  { rule: 'a leading space', destinations: API, url: ' https://api.example.com/v1', verdict: 'space' },
  { rule: 'a tab (parsers drop it)', destinations: API, url: 'https://api.example.com/v\t1/x', verdict: 'space' },
  { rule: 'a space in the query', destinations: API, url: 'https://api.example.com/v1?q=a b', verdict: 'space' },
  { rule: 'an invisible character in the host', destinations: API, url: 'https://api.exa\u200bmple.com/v1', verdict: 'space' },

  // Raw text: backslashes.
  { rule: 'a backslash as the path separator', destinations: API, url: 'https://api.example.com\\v1\\x', verdict: 'backslash' },
  { rule: 'a backslash before user info', destinations: API, url: 'https://evil.net\\@api.example.com/v1', verdict: 'backslash' },
  { rule: 'a backslash in the path', destinations: API, url: 'https://api.example.com/v1\\..\\admin', verdict: 'backslash' },
  { rule: 'a backslash in the query', destinations: API, url: 'https://api.example.com/v1?x=\\', verdict: 'backslash' },

  // Raw text: dot segments.
  { rule: '.. segment', destinations: API, url: 'https://api.example.com/v1/../admin', verdict: 'dot_segment' },
  { rule: '. segment', destinations: API, url: 'https://api.example.com/v1/./x', verdict: 'dot_segment' },
  { rule: '.. segment at the end', destinations: API, url: 'https://api.example.com/v1/..', verdict: 'dot_segment' },
  { rule: '.. segment that stays inside', destinations: API, url: 'https://api.example.com/v1/x/../y', verdict: 'dot_segment' },
  { rule: '%2e%2e segment', destinations: API, url: 'https://api.example.com/v1/%2e%2e/admin', verdict: 'dot_segment' },
  { rule: '%2E%2e segment (mixed case)', destinations: API, url: 'https://api.example.com/v1/%2E%2e/admin', verdict: 'dot_segment' },
  { rule: '.%2e segment', destinations: API, url: 'https://api.example.com/v1/.%2E/admin', verdict: 'dot_segment' },
  { rule: '%2e segment', destinations: API, url: 'https://api.example.com/v1/%2e/x', verdict: 'dot_segment' },
  { rule: '.. then an encoded slash', destinations: API, url: 'https://api.example.com/v1/..%2fadmin', verdict: 'dot_segment' },
  { rule: '.. then an encoded backslash', destinations: API, url: 'https://api.example.com/v1/..%5Cadmin', verdict: 'dot_segment' },
  { rule: '.. with a ;parameter', destinations: API, url: 'https://api.example.com/v1/..;/admin', verdict: 'dot_segment' },

  // Raw text: a placeholder before the path.
  { rule: 'the token in the host', destinations: WILDCARD, url: 'https://$CLIENT_SECRET.example.com/x', verdict: 'placeholder_before_path' },
  { rule: 'the token as the port', destinations: API, url: 'https://api.example.com:$CLIENT_SECRET/v1', verdict: 'placeholder_before_path' },
  { rule: 'the token in the scheme', destinations: API, url: '$CLIENT_SECRET://api.example.com/v1', verdict: 'placeholder_before_path' },
  { rule: 'a reference in the host', destinations: WILDCARD, url: 'https://${body[host]}.example.com/x', verdict: 'placeholder_before_path' },
  { rule: 'a reference as the host, no path', destinations: API, url: 'https://${CLIENT_SECRET}', verdict: 'placeholder_before_path' },
  { rule: 'the start of a reference in the host', destinations: WILDCARD, url: 'https://${x.example.com/v1', verdict: 'placeholder_before_path' },

  // Destinations that are not valid match nothing; the others still match.
  { rule: 'a destination that is not a url', destinations: ['not a url'], url: 'https://api.example.com/v1', verdict: 'not_listed' },
  { rule: 'a destination without a scheme', destinations: ['api.example.com'], url: 'https://api.example.com/v1', verdict: 'not_listed' },
  { rule: 'a destination with a query', destinations: ['https://api.example.com/v1?x=1'], url: 'https://api.example.com/v1?x=1', verdict: 'not_listed' },
  { rule: 'a destination with user info', destinations: ['https://u@api.example.com/'], url: 'https://api.example.com/v1', verdict: 'not_listed' },
  { rule: 'a destination with * inside the host', destinations: ['https://api.*.com/'], url: 'https://api.example.com/v1', verdict: 'not_listed' },
  { rule: 'a destination with * in the path', destinations: ['https://api.example.com/*'], url: 'https://api.example.com/*', verdict: 'not_listed' },
  { rule: 'a valid destination beside an invalid one', destinations: ['not a url', ...API], url: 'https://api.example.com/v1/x', verdict: 'allowed' },

  // Several destinations: any one admits.
  {
    rule: 'the second destination admits',
    destinations: ['https://a.example.com/v1', 'https://b.example.com/v2'],
    url: 'https://b.example.com/v2/x',
    verdict: 'allowed',
  },
  {
    rule: "one destination's host with the other's path",
    destinations: ['https://a.example.com/v1', 'https://b.example.com/v2'],
    url: 'https://a.example.com/v2',
    verdict: 'not_listed',
  },
];
