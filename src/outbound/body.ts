/** Encoding of the data of an outbound POST or PUT (spec 2.4 req data). */
import { valueText } from './url';

/** application/json or any +json media type (application/vnd.api+json, application/problem+json). */
export function isJsonContentType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const mediaType = contentType.split(';')[0].trim().toLowerCase();
  return mediaType === 'application/json' || /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+\+json$/.test(mediaType);
}

export interface EncodedBody {
  body: string;
  /** The content-type to send: the one given, else the default of the encoding. */
  contentType: string;
}

/**
 * JSON when the content-type says so; otherwise an object or array is form encoded (nested values as
 * compact JSON), a string is sent as it is, and a number, boolean or null as its JSON text.
 */
export function encodeBody(data: unknown, contentType: string | undefined): EncodedBody {
  if (isJsonContentType(contentType)) return { body: JSON.stringify(data), contentType: contentType as string };
  if (data !== null && typeof data === 'object') {
    const form = new URLSearchParams();
    for (const [key, value] of Object.entries(data)) {
      if (value !== undefined) form.append(key, valueText(value));
    }
    return { body: form.toString(), contentType: contentType ?? 'application/x-www-form-urlencoded' };
  }
  if (typeof data === 'string') return { body: data, contentType: contentType ?? 'text/plain;charset=UTF-8' };
  return { body: JSON.stringify(data), contentType: contentType ?? 'text/plain;charset=UTF-8' };
}
