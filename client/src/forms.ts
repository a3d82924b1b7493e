/**
 * The form argument of forwardRequest (spec 4.3): flattened to a key-value object (repeated names
 * collapse to an array, `a[b]` names build nested objects, files are dropped), or serialized to the
 * exact multipart bytes a browser's fetch would post.
 */
import { MAX_MULTIPART_CHARS } from '../../schemas/forward-rules.js';
import { invalidParameter, SvcError } from './errors.js';
import type { ForwardForm } from './forward-types.js';
import { toBase64 } from '../../schemas/encoding.js';

const FORM_RULE = 'form: must be a submit event, a form element, FormData, a plain object or null.';

const isEvent = (value: unknown): value is Event => typeof Event !== 'undefined' && value instanceof Event;
const isFormElement = (value: unknown): value is HTMLFormElement => typeof HTMLFormElement !== 'undefined' && value instanceof HTMLFormElement;
export const isFormData = (value: unknown): value is FormData => typeof FormData !== 'undefined' && value instanceof FormData;
const isBlob = (value: unknown): value is Blob => typeof Blob !== 'undefined' && value instanceof Blob;

/** A submit event or a form element: what a page would pass for an HTML form. */
export const isHtmlForm = (value: unknown): boolean => isEvent(value) || isFormElement(value);

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** A submit event must not navigate: called before anything else, while the event is still being dispatched. */
export function preventSubmit(form: unknown): void {
  if (isEvent(form)) form.preventDefault();
}

/** The FormData of a submit event (with its submitter, as the browser would post it), a form element or FormData; null otherwise. */
function formDataOf(form: unknown): FormData | null {
  if (isEvent(form)) {
    if (!isFormElement(form.target)) throw invalidParameter('form: a submit event must target a form element.');
    const submitter = (form as SubmitEvent).submitter ?? null;
    try {
      return new FormData(form.target, submitter);
    } catch {
      return new FormData(form.target); // a browser without the submitter argument, or a submitter of another form
    }
  }
  if (isFormElement(form)) return new FormData(form);
  if (isFormData(form)) return form;
  return null;
}

/** Sets an own property, never a prototype: a field named `__proto__` is a field like any other. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
const ownValue = (target: Record<string, unknown>, key: string): unknown => (Object.hasOwn(target, key) ? target[key] : undefined);

/** `a[b][c]` → ['a', 'b', 'c']; `a[]` → ['a', ''] (always an array); any other name is one segment. */
export function namePath(name: string): string[] {
  const match = /^([^[\]]+)((?:\[[^[\]]*\])+)$/.exec(name);
  if (!match) return [name];
  const segments = [match[1], ...match[2].slice(1, -1).split('][')];
  // An empty segment means "append" and only makes sense last: `a[][b]` stays a plain name.
  return segments.slice(0, -1).includes('') ? [name] : segments;
}

/** Adds a value under a name: a repeated name collects an array. */
function addValue(target: Record<string, unknown>, key: string, value: unknown, append: boolean): void {
  const existing = ownValue(target, key);
  if (existing === undefined) setOwn(target, key, append ? [value] : value);
  else if (Array.isArray(existing)) existing.push(value);
  else setOwn(target, key, [existing, value]);
}

/** Places one field by its bracketed path; a path that runs into a value of another kind keeps its whole name as the key. */
function placeField(target: Record<string, unknown>, name: string, value: string): void {
  const path = namePath(name);
  const append = path.length > 1 && path[path.length - 1] === '';
  const keys = append ? path.slice(0, -1) : path;
  let node = target;
  for (const segment of keys.slice(0, -1)) {
    const existing = ownValue(node, segment);
    if (existing === undefined) {
      const child: Record<string, unknown> = {};
      setOwn(node, segment, child);
      node = child;
    } else if (isPlainObject(existing)) {
      node = existing;
    } else {
      return addValue(target, name, value, false);
    }
  }
  const leaf = keys[keys.length - 1];
  if (isPlainObject(ownValue(node, leaf))) return addValue(target, name, value, false);
  addValue(node, leaf, value, append);
}

/** Fields of a FormData as a key-value object; files are dropped (they have no JSON form). */
export function flattenFormData(formData: FormData): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  formData.forEach((value, name) => {
    if (typeof value === 'string') placeField(fields, name, value);
  });
  return fields;
}

/** A copy of a plain value without its Blobs and Files, at any depth. */
function withoutFiles(value: unknown): unknown {
  if (Array.isArray(value)) return value.filter((item) => !isBlob(item)).map(withoutFiles);
  if (!isPlainObject(value)) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) if (!isBlob(item)) setOwn(copy, key, withoutFiles(item));
  return copy;
}

/** The form as a key-value object; undefined for null (nothing to merge). */
export function flattenForm(form: ForwardForm | unknown): Record<string, unknown> | undefined {
  if (form === null || form === undefined) return undefined;
  const formData = formDataOf(form);
  if (formData) return flattenFormData(formData);
  if (isPlainObject(form)) return withoutFiles(form) as Record<string, unknown>;
  throw invalidParameter(FORM_RULE);
}

/** A plain object as FormData: arrays repeat the name, nested objects use `a[b]` names, Blobs stay files. */
function formDataFromObject(object: Record<string, unknown>): FormData {
  const formData = new FormData();
  const add = (name: string, value: unknown): void => {
    if (value === undefined || value === null) return;
    if (isBlob(value)) formData.append(name, value);
    else if (Array.isArray(value)) for (const item of value) add(name, item);
    else if (isPlainObject(value)) for (const [key, item] of Object.entries(value)) add(`${name}[${key}]`, item);
    else formData.append(name, typeof value === 'string' ? value : JSON.stringify(value));
  };
  for (const [key, value] of Object.entries(object)) add(key, value);
  return formData;
}

/** The multipart body as it travels in a dispatch. */
export interface MultipartBody {
  content_type: string;
  base64: string;
}

/** Length of the base64 text of `bytes` bytes. */
export const base64Length = (bytes: number) => 4 * Math.ceil(bytes / 3);

/**
 * The form's own bytes, serialized by the platform exactly as fetch would post that FormData
 * (`new Response(formData)`: boundary, part headers, file bytes), base64-encoded; over the cap the
 * measured size is in the refusal.
 */
export async function multipartOf(form: ForwardForm | unknown): Promise<MultipartBody> {
  if (typeof FormData === 'undefined' || typeof Response === 'undefined') {
    throw new SvcError('multipart: this environment has no FormData or Response to serialize the form with.', { code: 'NOT_SUPPORTED' });
  }
  const formData = formDataOf(form) ?? (isPlainObject(form) ? formDataFromObject(form) : null);
  if (!formData) throw invalidParameter(FORM_RULE);
  const serialized = new Response(formData);
  const content_type = serialized.headers.get('content-type') ?? '';
  const bytes = new Uint8Array(await serialized.arrayBuffer());
  const size = base64Length(bytes.length);
  if (size > MAX_MULTIPART_CHARS) {
    throw invalidParameter(`multipart: the encoded body is ${size} characters; at most ${MAX_MULTIPART_CHARS} are relayed.`);
  }
  return { content_type, base64: toBase64(bytes) };
}
