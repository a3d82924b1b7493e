import { childPath, invalidField } from '../paths';
import { rewriteLegacyReferences, validateTemplate, type TemplateContext } from '../references';

/**
 * Checks every string of a templated value, at any depth, and returns the stored copy with the older
 * ${data...} written as ${body...}. Object keys are not templated.
 */
export function templated<T>(value: T, ctx: TemplateContext, path: string): T {
  if (typeof value === 'string') {
    validateTemplate(value, ctx, path);
    return rewriteLegacyReferences(value) as T;
  }
  if (Array.isArray(value)) return value.map((item, i) => templated(item, ctx, childPath(path, i))) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, templated(item, ctx, childPath(path, key))])) as T;
  }
  return value;
}

/** A field that is never templated and must not look like a template (a template id, a newsletter). */
export function requireLiteral(text: string, path: string): void {
  if (text.includes('${')) throw invalidField(path, 'must be literal text: references (${...}) are not allowed here');
}
