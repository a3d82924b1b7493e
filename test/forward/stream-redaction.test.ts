/**
 * The key never reaches a reader of a stream, even when the destination echoes it split across two pieces:
 * as written and escaped (percent, JSON \u, HTML references), cut at every point.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createProject, putSecret, type TestProject } from '../helpers/api';
import { forward, origin, readStream } from './support';

const SECRET = 'sk-test-4f9aQ7zB2mXe';

let project: TestProject;
beforeAll(async () => {
  project = await createProject();
  await putSecret(project, 'llm', SECRET);
});

const hex = (ch: string) => (ch.codePointAt(0) as number).toString(16).padStart(4, '0');
const FORMS: Record<string, string> = {
  'as written': SECRET,
  'percent-encoded': [...SECRET].map((ch) => `%${hex(ch).slice(2).toUpperCase()}`).join(''),
  'JSON \\u escapes': [...SECRET].map((ch) => `\\u${hex(ch)}`).join(''),
  'HTML references': [...SECRET].map((ch) => `&#x${hex(ch)};`).join(''),
};

describe('a key echoed across two pieces', () => {
  for (const [form, copy] of Object.entries(FORMS)) {
    it(`is replaced in every split of a copy ${form}`, async () => {
      await readCuts(
        copy,
        Array.from({ length: copy.length + 1 }, (_, k) => k),
      );
    }, 120_000);
  }
});

async function readCuts(copy: string, cuts: number[]): Promise<void> {
  const requests = await Promise.all(
    cuts.map(async (k) => {
      const url = `${origin}/pieces/${crypto.randomUUID()}`;
      const pieces = [`data: before ${copy.slice(0, k)}`, `${copy.slice(k)} after\n\n`];
      const res = await forward(project, {
        url,
        method: 'POST',
        stream: true,
        queue: `cut-${k}`,
        secretName: 'llm',
        headers: { authorization: 'Bearer $CLIENT_SECRET' },
        data: { pieces, gap_ms: 40 },
      });
      return { id: res.json.id as string, url, method: 'POST' };
    }),
  );
  for (const request of requests) {
    const read = await readStream(project, request);
    expect(read.envelope.status).toBe('resolved');
    expect(read.text).toBe('data: before $CLIENT_SECRET after\n\n');
    for (const written of Object.values(FORMS)) expect(read.text).not.toContain(written);
  }
}
