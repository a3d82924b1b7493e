/**
 * Builders of the body cases every JSON route shares: malformed bodies, one wrong value per field,
 * one missing required field. Each starts from a valid body and breaks one thing.
 */
import { MAX_BODY_BYTES, MAX_DEFINITION_JSON_DEPTH } from '../../src/limits';
import { invalidParameter, type BadInputCase, type Expected, type Target } from './case';
import { deepArray, deepObject, deepUnder, oversizeUnder } from './payloads';

/** What a refused body looks like on a route: platform routes carry detail.field, registration names the field in the message only. */
export interface BodyRules {
  /** Answer to a body that is JSON but not an object. */
  notAnObject: Expected;
  /** Answer to an unknown top-level field named `field`. */
  unknownField: (field: string) => Expected;
  /** An empty body is read as {} (and a valid {} would be stored), so it is no bad input here. */
  emptyIsValid?: boolean;
}

const deepExpected = (prefix: string): Expected => ({
  status: 400,
  code: 'INVALID_PARAMETER',
  fieldPrefix: prefix,
  detail: { limit: MAX_DEFINITION_JSON_DEPTH },
  message: new RegExp(`${MAX_DEFINITION_JSON_DEPTH} levels`),
});

/**
 * The malformed-body cases every JSON route shares: invalid JSON, empty, not an object, an unknown
 * field beside the `valid` ones, 100,000 levels of nesting (at the root and under `field`), over 1 MiB.
 */
export function bodyShapeCases(target: Target, rules: BodyRules, valid: Record<string, unknown>, field: string): BadInputCase[] {
  const body = invalidParameter('body', true);
  const cases: BadInputCase[] = [
    { ...target, input: 'a body that is not valid JSON', body: '{"a": ', expect: body },
    { ...target, input: 'a body cut off inside a string', body: '{"a": "b', expect: body },
    { ...target, input: 'a JSON array body', body: { json: [] }, expect: rules.notAnObject },
    { ...target, input: 'a JSON string body', body: { json: 'text' }, expect: rules.notAnObject },
    { ...target, input: 'a JSON number body', body: '42', expect: rules.notAnObject },
    { ...target, input: 'a JSON null body', body: 'null', expect: rules.notAnObject },
    { ...target, input: 'an unknown field', body: { json: { ...valid, unknown_field: 1 } }, expect: rules.unknownField('unknown_field') },
    { ...target, input: 'JSON nested 100,000 levels deep (arrays)', body: deepArray, expect: deepExpected('[0][0]') },
    { ...target, input: 'JSON nested 100,000 levels deep (objects)', body: deepObject, expect: deepExpected('a.a') },
    { ...target, input: `"${field}" nested 100,000 levels deep`, body: deepUnder(field), expect: deepExpected(`${field}[0]`) },
    {
      ...target,
      input: `a body over 1 MiB ("${field}" of ${MAX_BODY_BYTES + 1} characters)`,
      body: oversizeUnder(field),
      expect: { ...body, message: new RegExp(`${MAX_BODY_BYTES}`) },
    },
  ];
  if (!rules.emptyIsValid) cases.push({ ...target, input: 'an empty body', body: '', expect: body });
  return cases;
}

/** Short words for a wrong value in a test name: "a number (1)". */
export function describeValue(value: unknown): string {
  const shown = JSON.stringify(value);
  const short = shown.length > 24 ? `${shown.slice(0, 21)}…` : shown;
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an array (${short})`;
  if (typeof value === 'object') return `an object (${short})`;
  if (typeof value === 'number') return Number.isInteger(value) ? `the number ${short}` : `the fraction ${short}`;
  if (typeof value === 'boolean') return `the boolean ${short}`;
  return `the string ${short}`;
}

/** A wrong value with the words a test name puts after the field ("over 500 characters"), where its JSON would not say what is wrong. */
export interface Described {
  described: string;
  value: unknown;
  /** The field the refusal names, when it is inside the value (e.g. 'destinations[0]'). */
  field?: string;
}
export const described = (value: unknown, words: string, field?: string): Described => ({ described: words, value, ...(field ? { field } : {}) });
const isDescribed = (entry: unknown): entry is Described => typeof entry === 'object' && entry !== null && 'described' in entry && 'value' in entry;

/**
 * One case per field and wrong value: the valid `base` body with that one field replaced. `wrong`
 * maps a field (a dotted path into base, e.g. 'identity.issuer') to the values it must refuse.
 */
export function wrongValueCases(
  target: Target,
  base: Record<string, unknown>,
  wrong: Record<string, Array<unknown | Described>>,
  detailed: boolean,
): BadInputCase[] {
  return Object.entries(wrong).flatMap(([field, values]) =>
    values.map((entry): BadInputCase => {
      const value = isDescribed(entry) ? entry.value : entry;
      return {
        ...target,
        input: `"${field}" ${isDescribed(entry) ? entry.described : `as ${describeValue(value)}`}`,
        body: { json: withField(base, field, value) },
        expect: invalidParameter((isDescribed(entry) && entry.field) || fieldPathOf(field), detailed),
      };
    }),
  );
}

/** One case per required field: the valid body without it. */
export function missingFieldCases(target: Target, base: Record<string, unknown>, required: string[], detailed: boolean): BadInputCase[] {
  return required.map((field) => ({
    ...target,
    input: `a body without the required "${field}"`,
    body: { json: withField(base, field, undefined) },
    expect: invalidParameter(field, detailed),
  }));
}

/** 'actions.0.act' → 'actions[0].act', as the refusals write paths. */
const fieldPathOf = (dotted: string): string => dotted.replace(/\.(\d+)(?=\.|$)/g, '[$1]');

/** A deep copy of `base` with the value at the dotted `path` set (undefined removes it). */
export function withField(base: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const copy = structuredClone(base);
  const keys = path.split('.');
  let node: any = copy;
  for (const key of keys.slice(0, -1)) node = node[key];
  const last = keys[keys.length - 1];
  if (value === undefined) delete node[last];
  else node[last] = value;
  return copy;
}
