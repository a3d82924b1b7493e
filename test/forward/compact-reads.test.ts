/**
 * Issue 25 item 4, memory: a compact history listing reads only what it shows. Bodies waiting in
 * forward_bodies (up to about 900 KB each) are read as their first characters, not whole.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { COLUMNS, COMPACT_COLUMNS } from '../../src/forward/history';
import { createProject, type TestProject } from '../helpers/api';
import { historyOf } from './history-store';
import { forward, history, origin } from './support';

let project: TestProject;
beforeAll(async () => {
  project = await createProject();
});

/** The characters the caller's history answers for this url's rows read with these columns. */
const readChars = async (columns: string, url: string) => {
  const { results } = await historyOf(project.service_id)
    .prepare(`SELECT ${columns} FROM forward_requests AS f WHERE service_id = ? AND url = ?`)
    .bind(project.service_id, url)
    .all();
  return { rows: results.length, chars: JSON.stringify(results).length };
};

describe('a compact listing', () => {
  it('reads the first characters of waiting bodies, not the bodies, and shows the same texts as a full listing', async () => {
    const url = `${origin}/sized/100?compact-reads=${crypto.randomUUID()}`;
    const data = `é"\\${'b'.repeat(500_000)}`;
    for (let i = 0; i < 3; i++) expect((await forward(project, { url, method: 'POST', data })).status).toBe(200);
    const full = await readChars(COLUMNS, url);
    const compact = await readChars(COMPACT_COLUMNS, url);
    expect([full.rows, compact.rows]).toEqual([3, 3]);
    expect(full.chars).toBeGreaterThan(3 * 500_000);
    expect(compact.chars).toBeLessThan(3 * 5_000);
    const listed = await history(project, { url, method: 'POST', limit: '10', compact: 'true' });
    expect(listed.status, listed.text.slice(0, 300)).toBe(200);
    expect((listed.json.list as Array<Record<string, unknown>>).map((item) => [item.request_text, item.response_text, item.response_complete_marker])).toEqual(
      Array.from({ length: 3 }, () => [data.slice(0, 200), 'x'.repeat(100), true]),
    );
  }, 60_000);
});
