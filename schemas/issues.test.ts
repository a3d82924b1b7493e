import * as z from 'zod';
import { describe, expect, it } from 'vitest';
import { readIssues } from './issues';
import { strictObject } from './strict';

const issuesOf = (schema: z.ZodType, input: unknown) => {
  const result = schema.safeParse(input);
  if (result.success) throw new Error('expected a refusal');
  return result.error.issues;
};

describe('readIssues: one reading of a zod issue list into { field, message }, in two kept styles', () => {
  const item = z.strictObject({ url: z.string(), headers: z.record(z.string(), z.string()).optional() });
  const list = z.union([item, z.array(item)]);

  it('a definition follows the deepest branch of a failed union; a body names the union itself', () => {
    const issues = issuesOf(list, [{ url: 5 }]);
    expect(readIssues(issues, 'definition')).toEqual({ field: '[0].url', message: 'expected string, received number' });
    expect(readIssues(issues, 'body')).toEqual({ field: '', message: 'Invalid input' });
  });

  it('a definition reads zod text readably, a missing field as "is required"; a body keeps zod text', () => {
    const issues = issuesOf(item, {});
    expect(readIssues(issues, 'definition').message).toBe('is required');
    expect(readIssues(issues, 'body').message).toBe('Invalid input: expected string, received undefined');
  });

  it('a definition puts an older-format key first; a body takes the first unknown key; both list every one', () => {
    const issues = issuesOf(strictObject({ url: z.string() }), { url: 'u', extra: 1, match: 2 });
    expect(readIssues(issues, 'definition')).toMatchObject({ field: 'match', unknownFields: ['extra', 'match'] });
    expect(readIssues(issues, 'body')).toMatchObject({ field: 'extra', unknownFields: ['extra', 'match'] });
  });

  it("a refused record key is described by the key's own rule in both styles", () => {
    const issues = issuesOf(z.record(z.string().regex(/^[a-z]+$/, 'must be lowercase letters'), z.number()), { Bad: 1 });
    expect(readIssues(issues, 'definition')).toEqual({ field: 'Bad', message: 'must be lowercase letters' });
    expect(readIssues(issues, 'body')).toEqual({ field: 'Bad', message: 'must be lowercase letters' });
  });

  it('a key that is not an identifier is quoted in a definition and bare in a body; the base heads the path', () => {
    const issues = issuesOf(item, { url: 'u', headers: { 'X-Id': 1 } });
    expect(readIssues(issues, 'definition', 'items[2]').field).toBe('items[2].headers["X-Id"]');
    expect(readIssues(issues, 'body').field).toBe('headers.X-Id');
  });
});
