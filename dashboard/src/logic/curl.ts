/**
 * "Copy as curl" of the event inspector (issue 37 item 4): a consumption's request as received, as one
 * shell command. Only what the log kept goes in, and a header the log redacted (a credential, a token a
 * signature compares with a Secret Key) is left out and named in a comment, never written: no secret can
 * reach the clipboard. Every value is single-quoted for POSIX shells.
 */
import type { LoggedRequest } from '../../../schemas/listings';

/** Headers curl or the platform sets itself, or that describe the hop rather than the request. */
const HOP_HEADERS = new Set([
  'host',
  'content-length',
  'connection',
  'accept-encoding',
  'cf-connecting-ip',
  'cf-ray',
  'cf-ipcountry',
  'cf-visitor',
  'x-real-ip',
]);
const REDACTED = '[redacted]';

/** A POSIX shell single-quoted word. */
export const shellQuote = (text: string): string => `'${text.replaceAll("'", `'"'"'`)}'`;

const isHop = (name: string) => HOP_HEADERS.has(name) || name.startsWith('x-forwarded-') || name.startsWith('cf-');

/** The command; `fallbackUrl` is used when the entry was kept before URLs were. */
export function curlOf(request: LoggedRequest, fallbackUrl: string): string {
  const url = (request.url ?? fallbackUrl) + request.search;
  const lines = [`curl -X ${request.method} ${shellQuote(url)}`];
  const left: string[] = [];
  for (const [rawName, value] of Object.entries(request.headers).sort(([a], [b]) => a.localeCompare(b))) {
    const name = rawName.toLowerCase();
    if (isHop(name)) continue;
    if (value === REDACTED) left.push(name);
    else lines.push(`-H ${shellQuote(`${rawName}: ${value}`)}`);
  }
  if (request.method === 'POST') {
    const body = request.body;
    if ('text' in body) lines.push(`--data-raw ${shellQuote(body.text)}`);
    else if ('base64' in body) left.push(`the binary body (${Math.floor((body.base64.length * 3) / 4)} bytes, kept as base64)`);
    else left.push(`the body (${body.omitted_bytes} bytes, not kept)`);
  }
  const command = lines.join(' \\\n  ');
  return left.length ? `# Left out: ${left.join(', ')}.\n${command}` : command;
}

/** A forwarded request as the history keeps it: method, url and headers as written, the body the caller sent. */
export interface KeptForward {
  method: string;
  url: string;
  request_headers: Record<string, string> | null;
  /** What the caller sent as data: JSON text, or the parsed value. */
  request_body?: unknown;
}

/**
 * "Copy as curl" of a forwarded request: the url and headers as the caller wrote them, so a Secret Key
 * stands as the $CLIENT_SECRET placeholder the history keeps (single-quoted: the shell leaves it as is);
 * headers the history redacted are left out and named.
 */
export function forwardCurlOf(request: KeptForward): string {
  const lines = [`curl -X ${request.method} ${shellQuote(request.url)}`];
  const left: string[] = [];
  for (const [name, value] of Object.entries(request.request_headers ?? {}).sort(([a], [b]) => a.localeCompare(b))) {
    if (value === REDACTED || value.includes(REDACTED)) left.push(name.toLowerCase());
    else lines.push(`-H ${shellQuote(`${name}: ${value}`)}`);
  }
  const body = request.request_body;
  if (body !== undefined && body !== null) lines.push(`--data-raw ${shellQuote(typeof body === 'string' ? body : JSON.stringify(body))}`);
  const notes = [
    ...(lines.some((line) => line.includes('$CLIENT_SECRET')) ? ['# $CLIENT_SECRET stands for the Secret Key, which is never shown.'] : []),
    ...(left.length ? [`# Left out: ${left.join(', ')}.`] : []),
  ];
  return [...notes, lines.join(' \\\n  ')].join('\n');
}
