/**
 * The worked example of docs/migrating.md: a ticket exported from the older system, imported, run by
 * the previous rules, listed in the current format, and saved again under the current rules. The
 * docs copy EXPORTED and LISTED from here (test/docs-examples.test.ts imports the docs' copy again).
 */
/// <reference types="vite/types/importMeta.d.ts" />
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { call, createProject, type TestProject } from '../helpers/api';

const migrating = Object.values(import.meta.glob('/docs/migrating.md', { query: '?raw', import: 'default', eager: true }))[0] as string;

export const EXPORTED = {
  description: 'Paid orders from the shop',
  condition: {
    method: 'POST',
    data: [
      { key: 'status', operator: '=', value: 'paid' },
      { key: 'total', operator: '>=', value: 1 },
      { key: 'order[id]', placeholder: 'ORDER' },
    ],
  },
  actions: [
    {
      act: 'req',
      exe: {
        url: 'https://fulfil.example.com/orders',
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        data: { order: '${placeholder[ORDER]}', total: '${data[total]}' },
        actions: [{ act: 'resp', exe: { body: { queued: '${response[method]}' } } }],
      },
      condition: [{ key: 'method', operator: '=', value: 'POST' }],
    },
  ],
};

let project: TestProject;
beforeAll(async () => {
  project = await createProject();
});

/** The example with its destination moved to the loopback echo server, so it really runs. */
const runnable = () => {
  const copy = structuredClone(EXPORTED);
  copy.actions[0].exe.url = `${inject('loopbackOrigin')}/echo`;
  return copy;
};
const importPath = (ticketId: string) => `/v1/projects/${project.service_id}/tickets/${ticketId}/legacy`;
const longForm = (ticketId: string, body: unknown) =>
  call('POST', `/publ/consume/${project.service_id}/${project.owner_id}/${ticketId}`, {
    body,
    headers: { 'cf-connecting-ip': '203.0.113.42', 'user-agent': 'worked-example' },
  });

describe('the worked example of docs/migrating.md', () => {
  it('is the first legacy example of the page, as written here', () => {
    const block = /<!-- example: legacy worked example -->\n```json\n([\s\S]*?)```/.exec(migrating);
    expect(block, 'docs/migrating.md has the worked example').not.toBeNull();
    expect(JSON.parse(block![1])).toEqual(EXPORTED);
  });

  it('runs by the previous rules once imported: placeholders on the long-form route only, a missing field is an error', async () => {
    expect((await call('PUT', importPath('shop-paid'), { token: project.owner_key, body: runnable() })).status).toBe(201);
    const order = { status: 'paid', total: 12, order: { id: 'A-7' } };
    expect((await longForm('shop-paid', order)).json).toEqual({ queued: 'POST' });
    const short = await call('POST', `/tp/${project.service_id}/shop-paid`, { body: order });
    expect(short.status).toBe(400);
    expect(short.text).toBe('PLACEHOLDER_MISSING: ${placeholder[ORDER]} was never captured by the condition.');
    expect((await longForm('shop-paid', { total: 12 })).text).toBe("PATH_NOT_FOUND: The request has no body field 'status'.");
  });

  it('lists in the current format as the page shows it', async () => {
    await call('PUT', importPath('shop-listed'), { token: project.owner_key, body: EXPORTED });
    const res = await call('GET', `/v1/projects/${project.service_id}/tickets?ticket_id=shop-listed`, { token: project.owner_key });
    const { ticket_id: _id, timestamp: _t, updated: _u, ...listed } = res.json.list[0];
    const block = /<!-- example: legacy listing -->\n```json\n([\s\S]*?)```/.exec(migrating);
    expect(JSON.parse(block![1])).toEqual(listed);
  });

  it('saved again as the page shows it, it runs by the current rules', async () => {
    const block = /<!-- example: saved again -->\n```json\n([\s\S]*?)```/.exec(migrating);
    const saved = JSON.parse(block![1]);
    saved.actions[0].exe.url = `${inject('loopbackOrigin')}/echo`;
    expect((await call('PUT', `/v1/projects/${project.service_id}/tickets/shop-paid`, { token: project.owner_key, body: saved })).json).toMatchObject({
      legacy: false,
      rules_version: 2,
    });
    const short = await call('POST', `/tp/${project.service_id}/shop-paid`, { body: { status: 'paid', total: 12, order: { id: 'A-7' } } });
    expect(short.json).toEqual({ queued: 'POST' });
    expect((await longForm('shop-paid', { total: 12 })).json).toMatchObject({ code: 'CONDITION_FAILED', detail: { field: 'body', keys: ['status'] } });
  });
});
