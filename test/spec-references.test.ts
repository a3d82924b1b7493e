/// <reference types="vite/types/importMeta.d.ts" />
import { describe, expect, it } from 'vitest';
import specDoc from '../docs/spec.md?raw';

/**
 * Every "spec N.N" reference in the repository names a section of docs/spec.md, and reads that one
 * way (not "spec section N" or "spec §N"), so a reader can always follow it inside the repository.
 */
const files: Record<string, string> = import.meta.glob(
  [
    '/{src,durable-objects,schemas,client,dashboard,cli,test,docs,migrations,scripts,bench}/**/*.{ts,tsx,mts,mjs,md,sql,html}',
    '/README.md',
    '!**/node_modules/**',
    '!**/dist/**',
  ],
  { query: '?raw', import: 'default', eager: true },
);

/** The section numbers docs/spec.md has: its numbered headings ("## 2. …", "### 2.1.1 …"). */
function specSections(text: string): Set<string> {
  return new Set([...text.matchAll(/^#{2,4} (\d+(?:\.\d+)*)\.? /gm)].map(([, number]) => number!));
}

const NUMBER = String.raw`\d+(?:\.\d+)*`;
/** "spec 2.3", "spec 2.3, 2.4", "spec 2.1-2.5", "spec 2.6 and 4.1", "spec 9.2 / …", "spec 4.3's". */
const REFERENCE = new RegExp(String.raw`\bspec(?:ification)?(?:'s)?\s+(?:section\s+|§\s*)?(${NUMBER}(?:\s*(?:,|-|and)\s*${NUMBER})*)`, 'gi');

/** Each section number a reference names, with where it stands. */
function references(path: string, text: string): { where: string; number: string }[] {
  return [...text.matchAll(REFERENCE)].flatMap((match) => {
    const line = text.slice(0, match.index).split('\n').length;
    return match[1]!.split(/\s*(?:,|-|and)\s*/).map((number) => ({ where: `${path}:${line}`, number }));
  });
}

describe('references to the spec', () => {
  const sections = specSections(specDoc);
  const all = Object.entries(files).flatMap(([path, text]) => references(path, text));

  it('docs/spec.md has the numbered sections, and the tree has references to check', () => {
    expect(sections.size).toBeGreaterThan(20);
    expect(Object.keys(files)).toContain('/src/consume/consume-ticket.ts');
    expect(all.length).toBeGreaterThan(100);
  });

  it('every "spec N.N" names a section docs/spec.md has', () => {
    expect(all.filter(({ number }) => !sections.has(number))).toEqual([]);
  });

  it('every reference reads "spec N.N", never "spec section N" or "spec §N"', () => {
    const other = Object.entries(files).flatMap(([path, text]) =>
      [...text.matchAll(/\bspec(?:ification)?\s+(?:section|§)\s*\d/gi)].map((match) => `${path}:${text.slice(0, match.index).split('\n').length}`),
    );
    expect(other).toEqual([]);
  });

  it('no reference points at a copy of the spec outside the repository', () => {
    const outside = Object.entries(files)
      .filter(([, text]) => /\.\.\/shared\/spec|\/work\/shared/.test(text))
      .map(([path]) => path);
    expect(outside).toEqual([]);
  });
});
