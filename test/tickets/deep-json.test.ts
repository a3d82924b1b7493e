import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_DEFINITION_JSON_DEPTH } from '../../src/limits';
import { call, createProject, type TestProject } from '../helpers/api';

// Deep JSON is written as text: building it as a value and stringifying it would overflow here too.
const LEVELS = 100_000;
const deepArray = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
const DEEP = deepArray(LEVELS);

/** `depth` Then chains nested in one req action, the innermost holding `inner` (JSON text). */
function nestedThenChains(depth: number, inner: string): string {
  let chain = inner;
  for (let i = 0; i < depth; i++) chain = `[{"act":"req","exe":{"url":"https://example.com/","actions":${chain}}}]`;
  return chain;
}

let project: TestProject;
beforeAll(async () => {
  project = await createProject();
});

const putRaw = (ticketId: string, text: string) =>
  call('PUT', `/v1/projects/${project.service_id}/tickets/${ticketId}`, {
    token: project.owner_key,
    raw: text,
    headers: { 'content-type': 'application/json' },
  });

async function expectNothingStored(ticketId: string) {
  const listed = await call('GET', `/v1/projects/${project.service_id}/tickets?ticket_id=${ticketId}`, { token: project.owner_key });
  expect(listed.json.list).toEqual([]);
  const consumed = await call('POST', `/tp/${project.service_id}/${ticketId}`, { body: {} });
  expect(consumed.json.code).toBe('TICKET_NOT_FOUND');
}

describe('registration refuses JSON nested deeper than the definition limit, naming the field and the limit', () => {
  const cases: [string, string, string][] = [
    ['a resp body', `{"actions":[{"act":"resp","exe":{"body":${DEEP}}}]}`, 'actions[0].exe.body'],
    ['pstr data', `{"actions":[{"act":"pstr","exe":{"table":{"name":"t","access_group":"public"},"data":${DEEP}}}]}`, 'actions[0].exe.data'],
    ['req data', `{"actions":[{"act":"req","exe":{"url":"https://example.com/","method":"POST","data":${DEEP}}}]}`, 'actions[0].exe.data'],
    [
      'a setValueWhenMatch',
      `{"condition":{"body":[{"key":"a","operator":"=","value":"x","setValueWhenMatch":${DEEP}}]},"actions":[]}`,
      'condition.body[0].setValueWhenMatch',
    ],
    [
      '5,000 nested Then chains (before the 50-action limit is checked)',
      `{"actions":${nestedThenChains(5_000, '[]')}}`,
      'actions[0].exe.actions[0].exe.actions',
    ],
  ];

  it.each(cases)('%s 100,000 levels deep is INVALID_PARAMETER and stores nothing', async (_, text, field) => {
    const ticketId = `deep-${crypto.randomUUID().slice(0, 8)}`;
    const res = await putRaw(ticketId, text);
    expect([res.status, res.json?.code]).toEqual([400, 'INVALID_PARAMETER']);
    expect(res.json.message).toContain(`"${field}`);
    expect(res.json.message).toContain(`nested deeper than ${MAX_DEFINITION_JSON_DEPTH} levels`);
    expect(res.json.detail).toMatchObject({ limit: MAX_DEFINITION_JSON_DEPTH });
    expect(res.json.detail.field.startsWith(field)).toBe(true);
    await expectNothingStored(ticketId);
  });

  it('a body one level past the limit is refused and one at the limit registers', async () => {
    // A resp body sits under level 4 (document, actions, action, exe): its arrays add the rest.
    const at = `{"actions":[{"act":"resp","exe":{"body":${deepArray(MAX_DEFINITION_JSON_DEPTH - 4)}}}]}`;
    const past = `{"actions":[{"act":"resp","exe":{"body":${deepArray(MAX_DEFINITION_JSON_DEPTH - 3)}}}]}`;
    expect((await putRaw('depth-at-limit', at)).status).toBe(201);
    const refused = await putRaw('depth-past-limit', past);
    expect([refused.status, refused.json.code]).toEqual([400, 'INVALID_PARAMETER']);
  });

  it('the deepest legal ticket registers: 49 nested Then chains whose innermost action holds a 64-level value', async () => {
    const innermost = `[{"act":"resp","exe":{"body":${deepArray(64)}}}]`;
    const res = await putRaw('deepest-legal', `{"actions":${nestedThenChains(49, innermost)}}`);
    expect(res.status).toBe(201);
  });

  it('dev user attributes 100,000 levels deep are INVALID_PARAMETER naming attributes, and no user is made', async () => {
    const res = await call('POST', `/v1/projects/${project.service_id}/dev/users`, {
      token: project.owner_key,
      raw: `{"user_id":"7b0a3c8e-1111-4222-8333-944455556666","attributes":{"profile":${DEEP}}}`,
      headers: { 'content-type': 'application/json' },
    });
    expect([res.status, res.json.code]).toEqual([400, 'INVALID_PARAMETER']);
    expect(res.json.message).toContain('"attributes.profile[0]');
    const { env } = await import('cloudflare:workers');
    const row = await env.DB.prepare('SELECT 1 FROM users WHERE service_id = ? AND user_id = ?')
      .bind(project.service_id, '7b0a3c8e-1111-4222-8333-944455556666')
      .first();
    expect(row).toBeNull();
  });
});
