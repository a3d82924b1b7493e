/**
 * ${CLIENT_SECRET} in the headers, data and params of a req action. They are templated with
 * keepClientSecret (src/engine/template.ts), which leaves each written ${CLIENT_SECRET} as that text and
 * refuses a value brought in by a reference that carries it, so every ${CLIENT_SECRET} in the rendered
 * values is one the ticket wrote. This fills them with the secret, in string values at any depth (keys
 * are not templated and are left alone).
 */
export const CLIENT_SECRET_TEXT = '${CLIENT_SECRET}';

export function fillClientSecret<T>(value: T, secret: string): T {
  if (typeof value === 'string') return (value.includes(CLIENT_SECRET_TEXT) ? value.split(CLIENT_SECRET_TEXT).join(secret) : value) as T;
  if (Array.isArray(value)) return value.map((item) => fillClientSecret(item, secret)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, fillClientSecret(item, secret)])) as T;
  }
  return value;
}
