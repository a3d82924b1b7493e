import { beforeAll, describe, expect, it } from 'vitest';
import type { TicketAction } from '../../schemas/ticket-types';
import { pstrAction } from '../../src/actions/pstr';
import { call, createProject, mintUser, type TestProject } from '../helpers/api';
import { handBuiltRun } from '../actions/hand-built-run';

let project: TestProject;
const ids: string[] = [];

async function write(exe: Record<string, unknown>, now: number): Promise<any> {
  const result = await pstrAction.run(handBuiltRun(project, { act: 'pstr', exe } as TicketAction, { now, ticketId: 'writer' }));
  if (!result.ok) throw new Error(JSON.stringify(result.failure));
  return result.answer;
}

beforeAll(async () => {
  project = await createProject();
  const start = Date.now();
  for (let i = 0; i < 5; i++) {
    ids.push((await write({ table: { name: i % 2 === 0 ? 'even' : 'odd', access_group: 0 }, data: { i } }, start + i)).record_id);
  }
});

const records = (query = '') => call('GET', `/v1/projects/${project.service_id}/records${query}`, { token: project.owner_key });

describe('owner record routes', () => {
  it('lists every record, newest first, with the ticket and consumption that wrote it', async () => {
    const res = await records();
    expect(res.status).toBe(200);
    expect(res.json.list.map((record: { record_id: string }) => record.record_id)).toEqual([...ids].reverse());
    expect(res.json.list[0]).toMatchObject({ data: { i: 4 }, written_by: { ticket_id: 'writer' } });
    expect(res.json.list[0].written_by.consume_id).toEqual(expect.any(String));
    expect([res.json.startKey, res.json.endOfList]).toEqual([null, true]);
  });

  it('filters by table and pages by startKey until endOfList', async () => {
    const first = await records('?table=even&limit=2');
    expect(first.json.list.map((record: { data: { i: number } }) => record.data.i)).toEqual([4, 2]);
    expect(first.json.endOfList).toBe(false);
    const second = await records(`?table=even&limit=2&startKey=${first.json.startKey}`);
    expect(second.json.list.map((record: { data: { i: number } }) => record.data.i)).toEqual([0]);
    expect([second.json.startKey, second.json.endOfList]).toEqual([null, true]);
  });

  it('reads one record by record_id; an unknown id is 404 NOT_FOUND', async () => {
    const one = await call('GET', `/v1/projects/${project.service_id}/records/${ids[1]}`, { token: project.owner_key });
    expect(one.json).toMatchObject({ record_id: ids[1], table: { name: 'odd', access_group: 0 }, data: { i: 1 } });
    const missing = await call('GET', `/v1/projects/${project.service_id}/records/nope`, { token: project.owner_key });
    expect([missing.status, missing.json.code]).toEqual([404, 'NOT_FOUND']);
  });

  it('refuses a bad limit or startKey with INVALID_PARAMETER', async () => {
    expect((await records('?limit=0')).json.code).toBe('INVALID_PARAMETER');
    expect((await records('?startKey=garbage')).json.code).toBe('INVALID_PARAMETER');
  });

  it('is for the owner key only: no credential is 401, a signed-in user 403', async () => {
    const anonymous = await call('GET', `/v1/projects/${project.service_id}/records`);
    expect(anonymous.status).toBe(401);
    const user = await mintUser(project);
    const signedIn = await call('GET', `/v1/projects/${project.service_id}/records/${ids[0]}`, { token: user.id_token });
    expect([signedIn.status, signedIn.json.code]).toEqual([403, 'INVALID_REQUEST']);
  });
});
