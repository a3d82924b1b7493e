/**
 * The Destinations of a Secret Key: the URLs a call that uses the key may go to, matched as the seed
 * system documents. A call's URL matches a destination when the scheme is the same, the host is the same
 * (ignoring case; `*.example.com` is every subdomain, not the apex), the port is the same (443 for https
 * and 80 for http when unwritten) and the path starts with the destination's path at a `/` boundary. The
 * query and fragment are never compared. Hosts and paths are compared as WHATWG URL parsing writes them.
 *
 * On a key that has Destinations, a URL whose raw text could be read as another address than the one
 * compared is refused whatever they say: user info, whitespace or control characters, backslashes, `.`
 * or `..` path segments (percent-encoded too), or a placeholder before the path.
 */
import { FORWARD_SECRET_TOKEN } from '../../schemas/forward-rules';

/** Why a URL may not be called with a key that has Destinations. */
export type DestinationRefusal = 'not_listed' | 'userinfo' | 'space' | 'backslash' | 'dot_segment' | 'placeholder_before_path';

export type DestinationVerdict = { allowed: true } | { allowed: false; reason: DestinationRefusal };

/** The raw text of a URL cut where a WHATWG parser cuts it: scheme and authority, then the path. */
interface RawParts {
  /** `scheme:`, the slashes after it and the authority (user info, host, port). */
  beforePath: string;
  authority: string;
  /** From the end of the authority to the first `?` or `#`. */
  path: string;
}

function splitRaw(raw: string): RawParts {
  const scheme = /^[^:/?#\\]*:/.exec(raw)?.[0] ?? '';
  const slashes = /^[/\\]*/.exec(raw.slice(scheme.length))?.[0] ?? '';
  const authorityStart = scheme.length + slashes.length;
  const authorityEnd = indexOfAny(raw, '/\\?#', authorityStart);
  const pathEnd = indexOfAny(raw, '?#', authorityEnd);
  return {
    beforePath: raw.slice(0, authorityEnd),
    authority: raw.slice(authorityStart, authorityEnd),
    path: raw.slice(authorityEnd, pathEnd),
  };
}

function indexOfAny(text: string, characters: string, from: number): number {
  for (let i = from; i < text.length; i++) if (characters.includes(text[i])) return i;
  return text.length;
}

const SPACE_OR_CONTROL = /[\s\p{Cc}\p{Cf}]/u;
/** The forwarding token, or the start of a `${...}` reference: filled in before the path, either could change the host. */
const PLACEHOLDER = new RegExp(`${escapeRegExp(FORWARD_SECRET_TOKEN)}|\\$\\{`);

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * True when a path segment is `.` or `..` as some server may read it: `%2e` decoded (any case), `%2f` and
 * `%5c` read as separators, and a `;parameter` after the dots ignored (`..;/` is `..` to some servers).
 */
function hasDotSegment(path: string): boolean {
  const decoded = path.replace(/%2e/gi, '.').replace(/%2f/gi, '/').replace(/%5c/gi, '\\');
  return decoded.split(/[/\\]/).some((segment) => {
    const name = segment.split(';')[0];
    return name === '.' || name === '..';
  });
}

/** The first reason the raw text of a URL could be read as another address than the one compared. */
function rawTextRefusal(raw: string): Exclude<DestinationRefusal, 'not_listed'> | undefined {
  if (SPACE_OR_CONTROL.test(raw)) return 'space';
  if (raw.includes('\\')) return 'backslash';
  const parts = splitRaw(raw);
  if (parts.authority.includes('@')) return 'userinfo';
  if (PLACEHOLDER.test(parts.beforePath)) return 'placeholder_before_path';
  if (hasDotSegment(parts.path)) return 'dot_segment';
  return undefined;
}

function parseHttpUrl(text: string): URL | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname ? url : undefined;
}

/** A destination as it is compared: null when its text is not a valid destination (it then matches nothing). */
interface Destination {
  protocol: string;
  /** The hostname, or for `*.example.com` the suffix `.example.com`. */
  host: string;
  wildcard: boolean;
  /** URL.port: '' for the scheme's default port, written or not (the schemes are compared too). */
  port: string;
  path: string;
}

/** Destinations parsed before (a key's few texts are judged on every call that uses it). */
const parsedDestinations = new Map<string, Destination | null>();
const MAX_PARSED_DESTINATIONS = 10_000;

function parseDestination(text: string): Destination | null {
  let parsed = parsedDestinations.get(text);
  if (parsed === undefined) {
    if (parsedDestinations.size >= MAX_PARSED_DESTINATIONS) parsedDestinations.clear();
    parsed = parseDestinationText(text);
    parsedDestinations.set(text, parsed);
  }
  return parsed;
}

function parseDestinationText(text: string): Destination | null {
  const read = readDestination(text);
  if ('problem' in read) return null;
  const { url } = read;
  const wildcard = url.hostname.startsWith('*.');
  return { protocol: url.protocol, host: wildcard ? url.hostname.slice(1) : url.hostname, wildcard, port: url.port, path: url.pathname };
}

function hostMatches(destination: Destination, hostname: string): boolean {
  if (!destination.wildcard) return hostname === destination.host;
  return hostname.endsWith(destination.host) && hostname.length > destination.host.length;
}

/** `/v1` admits `/v1` and `/v1/...`, not `/v10`; `/v1/` admits `/v1/...` only; `/` admits every path. */
function pathMatches(destinationPath: string, path: string): boolean {
  if (destinationPath.endsWith('/')) return path.startsWith(destinationPath);
  return path === destinationPath || path.startsWith(`${destinationPath}/`);
}

function matches(destination: Destination, url: URL): boolean {
  return (
    destination.protocol === url.protocol &&
    hostMatches(destination, url.hostname) &&
    destination.port === url.port &&
    pathMatches(destination.path, url.pathname)
  );
}

/**
 * Whether a call that uses a key with these Destinations may go to rawUrl, judged on the URL's text as the
 * caller wrote it (before normalization). No Destinations admit any URL (the address guard still applies).
 */
export function destinationVerdict(rawUrl: string, destinations: readonly string[]): DestinationVerdict {
  if (destinations.length === 0) return { allowed: true };
  let verdicts = verdictsByList.get(destinations);
  if (!verdicts) verdictsByList.set(destinations, (verdicts = new Map()));
  let verdict = verdicts.get(rawUrl);
  if (verdict === undefined) {
    if (verdicts.size >= MAX_VERDICTS_PER_LIST) verdicts.clear();
    verdict = judge(rawUrl, destinations);
    verdicts.set(rawUrl, verdict);
  }
  return verdict;
}

/**
 * Verdicts given before, per list: a cached key hands the same array to every call, and a call is judged
 * twice (before it is queued or sent, and by the outbound layer).
 */
const verdictsByList = new WeakMap<readonly string[], Map<string, DestinationVerdict>>();
const MAX_VERDICTS_PER_LIST = 1_000;

function judge(rawUrl: string, destinations: readonly string[]): DestinationVerdict {
  const refusal = rawTextRefusal(rawUrl);
  if (refusal) return { allowed: false, reason: refusal };
  const url = parseHttpUrl(rawUrl);
  const listed =
    url !== undefined &&
    destinations.some((text) => {
      const destination = parseDestination(text);
      return destination !== null && matches(destination, url);
    });
  return listed ? { allowed: true } : { allowed: false, reason: 'not_listed' };
}

const RAW_TEXT_PROBLEMS: Record<Exclude<DestinationRefusal, 'not_listed'>, string> = {
  space: 'may not hold whitespace, control or invisible characters',
  backslash: 'may not hold a backslash',
  userinfo: 'may not hold a user name or password',
  placeholder_before_path: 'may not hold a placeholder ($CLIENT_SECRET or ${...})',
  dot_segment: 'may not hold a "." or ".." path segment',
};

/** A destination text parsed, or why it cannot be one. */
function readDestination(text: string): { url: URL } | { problem: string } {
  const refusal = rawTextRefusal(text);
  if (refusal) return { problem: RAW_TEXT_PROBLEMS[refusal] };
  const url = /^https?:\/\/[^/]/i.test(text) ? parseHttpUrl(text) : undefined;
  if (!url) return { problem: 'must be an http:// or https:// URL with a host' };
  if (/[?#]/.test(text)) return { problem: 'may not hold a query or fragment (a query is never compared)' };
  const starAt = text.indexOf('*');
  if (starAt !== -1 && (!/^https?:\/\/\*\.[^.*/:]/i.test(text) || text.includes('*', starAt + 1))) {
    return { problem: 'may hold "*" only as the whole first label of the host, as in https://*.example.com' };
  }
  return { url };
}

/**
 * Why a text cannot be stored as a destination (a phrase for INVALID_PARAMETER), or undefined when it
 * can: an http(s) URL with a host, without user info, query or fragment, with `*` only as the whole first
 * label of the host (`https://*.example.com/v1`), and none of the raw-text problems a call's URL is refused for.
 */
export function destinationTextProblem(text: string): string | undefined {
  const read = readDestination(text);
  return 'problem' in read ? read.problem : undefined;
}
