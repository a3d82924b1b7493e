/** Header rules of outbound calls (spec 2.4 req headers). */
import { OutboundError } from './errors';
import { HOP_HEADER } from './hops';

/** Set by the engine on every call; a ticket may not set them (registration refuses them too). */
const ENGINE_HEADERS: ReadonlySet<string> = new Set(['host', 'x-svc-ticket', HOP_HEADER]);

/** An HTTP token (RFC 9110 field-name): ASCII, no ':', space, line break or NUL. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// A line break or NUL ends or corrupts the header; anything above Latin-1 has no byte form.
const BAD_VALUE_CHAR = /[\r\n\0]|[^\u0000-\u00ff]/;

/** A templated header value as text: a string as it is, anything else (a whole reference's value) as compact JSON. */
export function headerValueText(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
}

/**
 * Builds the outbound headers, refusing a name the engine sets, a name that is not a token and a value that
 * holds a line break, NUL or a character outside Latin-1 (reason 'invalid_header', naming the header).
 */
export function buildHeaders(values: Record<string, string>): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(values)) {
    if (!HEADER_NAME.test(name)) {
      throw new OutboundError('invalid_header', 'A header name is not a valid HTTP header name.', { header: name });
    }
    if (ENGINE_HEADERS.has(name.toLowerCase())) {
      throw new OutboundError('invalid_header', `The ${name} header is set by the service.`, { header: name });
    }
    if (BAD_VALUE_CHAR.test(value)) {
      throw new OutboundError(
        'invalid_header',
        `The value of the ${name} header holds a line break, NUL or a character outside Latin-1 after its references were filled in.`,
        { header: name },
      );
    }
    headers.append(name, value);
  }
  return headers;
}
