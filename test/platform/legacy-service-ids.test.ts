/**
 * Ids made before service ids carried their check (migration 0019, docs/decisions.md "Ids that do not
 * exist cost no store read") still name their projects: each isolate reads their list once, the first
 * time an id fails its check. Isolated (test/platform/): the list must not have been read before the
 * project below is turned into an old one.
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { d1QueriesSoFar } from '../../src/platform/strict-limits';
import { call, createProject, registerTicket, type TestProject } from '../helpers/api';

/** A 20-character id of the old shape: it fails the check (1 in 2 billion would pass; then this test says so). */
const OLD_ID = 'oldprojectid0000abcd';
const MADE_UP = 'madeupprojectid00000';

let project: TestProject;
beforeAll(async () => {
  const made = await createProject({ plan: 'standard' });
  // As migration 0019 left a project made before it: its id has no check, id_checked = 0.
  await env.DB.prepare('UPDATE projects SET service_id = ?, id_checked = 0 WHERE service_id = ?').bind(OLD_ID, made.service_id).run();
  project = { ...made, service_id: OLD_ID };
  await registerTicket(project, 'old-ticket', { actions: [] });
});

describe('a project whose id was made before ids carried a check', () => {
  it('is still found by its owner and its consumers', async () => {
    expect((await call('GET', `/v1/projects/${OLD_ID}/tickets/old-ticket`, { token: project.owner_key })).status).toBe(200);
    const consumed = await call('POST', `/tp/${OLD_ID}/old-ticket`, { body: {} });
    expect(consumed.status, consumed.text).toBe(200);
    expect(consumed.json).toMatchObject({ tkid: expect.any(String), hash: expect.any(String) });
  });

  it('leaves a made-up id of the same shape refused without a D1 query, the list already read', async () => {
    const before = d1QueriesSoFar();
    for (let i = 0; i < 20; i++) {
      const answer = await call('POST', `/tp/${MADE_UP}/old-ticket`, { body: {} });
      expect(answer.json).toMatchObject({ code: 'INVALID_SERVICE' });
    }
    expect(d1QueriesSoFar() - before).toBe(0);
  });
});
