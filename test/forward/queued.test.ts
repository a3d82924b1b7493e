/** The queued path: stored and answered at once with a status object, run one at a time per queue, polled to its result. */
import { beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../helpers/api';
import { forward, origin, settledEnvelope } from './support';

let project: TestProject;
beforeAll(async () => {
  project = await createProject();
});

describe('a queued forwarded request', () => {
  it('is answered pending with its queue and place, then polls to resolved with the stored answer', async () => {
    const url = `${origin}/echo/queued`;
    const res = await forward(project, { url, method: 'GET', queue: 'q1' });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ status: 'pending', queue_name: 'q1', in_queue: 1 });
    const done = await settledEnvelope(project, { id: res.json.id, url, method: 'GET' });
    expect(done).toMatchObject({ id: res.json.id, status: 'resolved', status_code: 200, in_queue: 0, response_body: { method: 'GET', path: '/echo/queued' } });
    expect(done.executed).toBeGreaterThanOrEqual(done.created);
    expect(done.responded).toBeGreaterThanOrEqual(done.executed);
  });
});
