/** req: an HTTP request. Its url, headers, data and params are templates; method and secretName are literal. */
import { childPath, invalidField } from '../paths';
import { isWholeReference, parseTemplate, type TemplateContext } from '../references';
import { HEADER_NAME } from '../signature';
import type { ReqExe } from './schema';
import type { ExeScope } from './scope';
import { templated } from './templated';

/** Set by the engine on every call, so a ticket may not set them. */
const ENGINE_HEADERS = new Set(['host', 'x-svc-ticket', 'x-svc-hop']);
// Line breaks, NUL and anything above Latin-1 cannot travel in an HTTP header value.
const BAD_HEADER_VALUE_CHAR = /[\r\n\0]|[^\u0000-\u00ff]/;

/** Checks the url's written-out parts; references are filled with a digit (valid in host, port and path) to check the rest parses. */
function checkUrl(url: string, secretName: string | undefined, path: string): void {
  if (isWholeReference(url)) {
    throw invalidField(path, 'a url that is one whole reference is refused: write the scheme and host out, e.g. https://api.example.com/${body[path]}');
  }
  const segments = parseTemplate(url);
  const head = segments[0].kind === 'literal' ? segments[0].text : '';
  const scheme = /^https?:\/\//i.exec(head);
  if (!scheme) throw invalidField(path, 'must start with http:// or https:// followed by a hostname');
  let parsed: URL;
  try {
    parsed = new URL(segments.map((s) => (s.kind === 'literal' ? s.text : '1')).join(''));
  } catch {
    throw invalidField(path, 'is not a valid http:// or https:// URL');
  }
  if (!parsed.hostname) throw invalidField(path, 'must name a hostname after the scheme');
  if (secretName !== undefined && segments.length > 1 && !/[/?#]/.test(head.slice(scheme[0].length))) {
    throw invalidField(path, 'with secretName the scheme and host must be written out: no reference before the path');
  }
}

function checkHeader(name: string, value: string, ctx: TemplateContext, path: string): string {
  if (ENGINE_HEADERS.has(name.toLowerCase())) throw invalidField(path, `the ${name} header is set by the service and cannot be set here`);
  if (!HEADER_NAME.test(name)) {
    throw invalidField(path, 'is not a valid header name (ASCII letters, digits and !#$%&\'*+-.^_`|~; no ":", line break or NUL)');
  }
  const stored = templated(value, ctx, path);
  for (const segment of parseTemplate(value)) {
    if (segment.kind === 'literal' && BAD_HEADER_VALUE_CHAR.test(segment.text)) {
      throw invalidField(path, 'the text of a header value may not hold a line break, NUL or a character outside Latin-1');
    }
  }
  return stored;
}

export function normalizeReq(exe: ReqExe, scope: ExeScope, path: string): Record<string, unknown> {
  const urlPath = childPath(path, 'url');
  const url = templated(exe.url, scope.tpl, urlPath);
  checkUrl(exe.url, exe.secretName, urlPath);
  const stored: Record<string, unknown> = { url, method: exe.method ?? 'GET' };

  const secretName = exe.secretName;
  if (secretName !== undefined) {
    stored.secretName = secretName;
    scope.checks.push({
      path: childPath(path, 'secretName'),
      message: `no Secret Key named "${secretName}" in this project`,
      exists: (lookups) => lookups.secretExists(secretName),
    });
  }
  const secretCtx: TemplateContext = { ...scope.tpl, allowClientSecret: secretName !== undefined };
  if (exe.headers !== undefined) {
    const headersPath = childPath(path, 'headers');
    stored.headers = Object.fromEntries(
      Object.entries(exe.headers).map(([name, value]) => [name, checkHeader(name, value, secretCtx, childPath(headersPath, name))]),
    );
  }
  if (exe.data !== undefined) stored.data = templated(exe.data, secretCtx, childPath(path, 'data'));
  if (exe.params !== undefined) stored.params = templated(exe.params, secretCtx, childPath(path, 'params'));
  return stored;
}
