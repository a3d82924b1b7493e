import { env } from 'cloudflare:workers';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { ownerTicketAnswer } from '../../schemas/answers';
import type { StoredTicket } from '../../schemas/ticket-types';
import { saveDirectoryEntry } from '../../src/platform/ticket-directory';
import { call, createProject, putSecret, type TestProject } from '../helpers/api';
import { ticketStub } from '../../src/platform/object-stubs';

/**
 * Round trip: every ticket, as getTickets lists it to the owner, registers again unchanged, so the
 * dashboard's Edit → Save (and a client's read-modify-write) never meets a refusal of its own output.
 */

const SECRETS = ['sig-a', 'api-key'];
const TEMPLATES = ['welcome'];
const NEWSLETTERS: [group: string, messageId: string][] = [
  ['public', 'news-a'],
  ['authorized', 'news-b'],
  ['7', 'news-c'],
];
const DAY = 86_400_000;

let project: TestProject;
beforeAll(async () => {
  project = await createProject();
  const owner = { token: project.owner_key };
  const base = `/v1/projects/${project.service_id}`;
  for (const name of SECRETS) await putSecret(project, name, 'whsec_round_trip');
  for (const id of TEMPLATES) await call('PUT', `${base}/mail-templates/${id}`, { ...owner, body: { subject: 'Hi ${name}' } });
  for (const [group, id] of NEWSLETTERS) await call('PUT', `${base}/newsletters/${group}/${id}`, { ...owner, body: { subject: 'News' } });
});

const put = (ticketId: string, body: unknown) => call('PUT', `/v1/projects/${project.service_id}/tickets/${ticketId}`, { token: project.owner_key, body });
async function listed(ticketId: string): Promise<Record<string, any>> {
  const res = await call('GET', `/v1/projects/${project.service_id}/tickets?ticket_id=${ticketId}`, { token: project.owner_key });
  expect(res.json.list).toHaveLength(1);
  return res.json.list[0];
}

// ---- arbitraries of valid tickets ----

/** Where an exe stands: which references resolve there. */
interface Place {
  inThen: boolean;
  inErr: boolean;
}

const word = fc.stringMatching(/^[a-z][a-z0-9_]{0,7}$/);
const text = fc.stringMatching(/^[A-Za-z0-9 .,:-]{0,12}$/);
const operator = fc.constantFrom('=', '!=', '>', '>=', '<', '<=', 'eq', 'ne', 'gt', 'gte', 'lt', 'lte');
const scalar = fc.oneof(text, fc.integer({ min: -1000, max: 1000 }), fc.boolean());
const rowKey = fc.constantFrom('id', 'type', 'order[id]', 'data[object][id]');
const placeholderName = fc.constantFrom('PI', 'ORDER', 'group_1');

/** A reference valid at `place` (spec 2.5). */
const reference = (place: Place) =>
  fc.oneof(
    rowKey.map((key) => `\${body[${key.replace(/\[.*/, '')}]}`),
    placeholderName.map((name) => `\${placeholder[${name}]}`),
    fc.constant('${ticket[id]}'),
    ...(place.inThen ? [fc.constantFrom('${response[status]}', '${response[body][id]}')] : []),
    ...(place.inErr ? [fc.constantFrom('${error[code]}', '${error[message]}')] : []),
  );
/** A template: literal text with references at `place`; never empty. */
const template = (place: Place) => fc.array(fc.oneof(text, reference(place)), { minLength: 1, maxLength: 3 }).map((parts) => parts.join('') || 'x');

const jsonOf = (place: Place): fc.Arbitrary<unknown> =>
  fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      scalar,
      fc.constant(null),
      template(place),
      fc.array(tie('value'), { maxLength: 3 }),
      fc.dictionary(word, tie('value'), { maxKeys: 3 }),
    ),
  })).value;

const matchPart = fc.record({ operator, value: fc.oneof(word, fc.array(word, { minLength: 1, maxLength: 3 })) });
const conditionRow = fc.record(
  {
    key: rowKey,
    operator,
    value: fc.oneof(scalar, fc.constant(null), fc.array(scalar, { maxLength: 3 })),
    placeholder: placeholderName,
  },
  { requiredKeys: ['key'] },
);

const signature = fc
  .record({
    secretName: fc.constantFrom(...SECRETS),
    header: fc.constantFrom('X-Sig', 'Stripe-Signature', 'webhook-signature'),
    algorithm: fc.constantFrom('sha256', 'sha1', 'sha512'),
    encoding: fc.constantFrom('hex', 'base64'),
    separator: fc.constantFrom(',', ' '),
    withTimestampCapture: fc.boolean(),
    timestamp: fc.constantFrom(undefined, 'capture', '${header:X-Ts}'),
    tolerance: fc.integer({ min: 1, max: 86_400 }),
    secret_encoding: fc.constantFrom('raw', 'base64', 'hex'),
    secret_prefix: fc.constantFrom(undefined, 'whsec_'),
  })
  .map(({ withTimestampCapture, timestamp, tolerance, ...config }) => {
    const captures = withTimestampCapture || timestamp === 'capture';
    const out: Record<string, unknown> = {
      ...config,
      parts: captures ? ['t=${ts}', 'v1=${signature}'] : ['v1=${signature}'],
      signed: captures ? '${ts}.${body}' : '${header:X-Id}.${body}',
    };
    if (timestamp !== undefined) Object.assign(out, { timestamp: timestamp === 'capture' ? '${ts}' : timestamp, tolerance });
    if (config.secret_prefix === undefined) delete out.secret_prefix;
    return out;
  });

const condition = fc
  .record(
    {
      return200: fc.boolean(),
      method: fc.constantFrom('GET', 'POST'),
      signature,
      ip: matchPart,
      user_agent: matchPart,
      headers: fc.array(fc.record({ key: fc.constantFrom('X-Kind', 'Content-Type'), operator, value: fc.oneof(word, fc.array(word, { maxLength: 2 })) }), {
        maxLength: 2,
      }),
      body: fc.array(conditionRow, { maxLength: 3 }),
      params: fc.array(conditionRow, { maxLength: 3 }),
      user: fc.array(fc.record({ key: word, operator, value: fc.oneof(scalar, fc.array(scalar, { minLength: 1, maxLength: 2 })) }), { maxLength: 2 }),
      record_access: word,
    },
    { requiredKeys: [] },
  )
  .map((c) => (c.method === 'GET' ? { ...c, body: undefined } : c));

const accessGroup = fc.oneof(fc.integer({ min: 0, max: 99 }), fc.constantFrom('public', 'authorized', 'admin'));
const indexValue = fc.oneof(word, fc.integer({ min: 0, max: 99 }), fc.boolean());

/** The exe of each kind, valid at `place`. */
const exeOf = (place: Place): Record<string, fc.Arbitrary<Record<string, unknown>>> => ({
  acsg: fc.record(
    { group: fc.oneof(fc.integer({ min: 1, max: 99 }), fc.constant('admin'), reference(place)), user_id: template(place) },
    { requiredKeys: ['group'] },
  ),
  acsr: fc.record(
    { record_id: template(place), user_id: fc.oneof(template(place), fc.array(template(place), { minLength: 1, maxLength: 2 })) },
    { requiredKeys: ['record_id'] },
  ),
  pstr: fc
    .record(
      {
        table: fc.record({ name: word, access_group: accessGroup }),
        data: jsonOf(place),
        index: fc.record({ name: word, value: indexValue }),
        tags: fc.array(word, { maxLength: 3 }),
        unique_id: template(place),
        reference: fc.oneof(template(place), fc.constant(null)),
        source: fc.record(
          {
            referencing_limit: fc.oneof(fc.nat(10), fc.constant(null)),
            prevent_multiple_referencing: fc.boolean(),
            only_granted_can_reference: fc.boolean(),
            referencing_index_restrictions: fc.array(fc.record({ name: word, value: indexValue, condition: operator }, { requiredKeys: ['name'] }), {
              maxLength: 2,
            }),
          },
          { requiredKeys: [] },
        ),
        user_id: template(place),
        readonly: fc.boolean(),
      },
      { requiredKeys: ['table'] },
    )
    .map((exe) => (exe.user_id === undefined && exe.readonly ? { ...exe, readonly: false } : exe)),
  req: fc
    .record(
      {
        path: fc.constantFrom('', 'orders', 'v1/${body[id]}'),
        method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE'),
        secretName: fc.constantFrom(...SECRETS),
        headers: fc.dictionary(fc.constantFrom('X-Api', 'Accept', 'X-Trace'), template(place), { maxKeys: 2 }),
        data: jsonOf(place),
        params: fc.dictionary(word, jsonOf(place), { maxKeys: 2 }),
      },
      { requiredKeys: ['path'] },
    )
    .map(({ path, ...exe }) => {
      const withSecret =
        exe.secretName !== undefined && exe.headers !== undefined ? { ...exe, headers: { ...exe.headers, Authorization: 'Bearer ${CLIENT_SECRET}' } } : exe;
      return { url: `https://api.example.com/${path}`, ...withSecret };
    }),
  mail: fc.record(
    {
      template: fc.constantFrom(...TEMPLATES),
      to: fc.constantFrom('someone@example.com', '${body[email]}'),
      placeholders: fc.dictionary(word, fc.oneof(template(place), fc.integer(), fc.boolean()), { maxKeys: 3 }),
    },
    { requiredKeys: ['template', 'to'] },
  ),
  nlsd: fc.constantFrom(...NEWSLETTERS).map(([group, newsletter]) => ({ group: /^\d+$/.test(group) ? Number(group) : group, newsletter })),
  resp: fc.record(
    {
      status: fc.oneof(fc.integer({ min: 100, max: 599 }), fc.constant('${placeholder[ORDER]}')),
      body: jsonOf(place).filter((body) => body === null || typeof body !== 'object' || Array.isArray(body) || !('stage' in body)),
      resume: fc.oneof(fc.constantFrom('stop', '0m', '10m', '2h', '3d'), fc.integer({ min: Date.now() + DAY, max: Date.now() + 30 * DAY })),
    },
    { requiredKeys: [] },
  ),
});

const THEN_KINDS = ['acsg', 'acsr', 'pstr', 'req', 'mail', 'nlsd'];

/** An action at `place`, with Then and err chains while `depth` lasts; cond only directly in a Then chain. */
function action(place: Place, depth: number, inThenChain: boolean): fc.Arbitrary<Record<string, unknown>> {
  const kinds = [...THEN_KINDS, 'resp', ...(inThenChain ? ['cond'] : [])];
  return fc.constantFrom(...kinds).chain((act) => {
    const exe =
      act === 'cond'
        ? fc.record({
            response: fc.array(
              conditionRow.map((row) => (row.value === undefined ? row : { ...row, value: '${response[status]}' })),
              { maxLength: 2 },
            ),
          })
        : exeOf(place)[act];
    const then = THEN_KINDS.includes(act) && depth > 0 ? chain({ ...place, inThen: true }, depth - 1, true) : fc.constant([]);
    const err = depth > 0 ? chain({ ...place, inErr: true }, depth - 1, false) : fc.constant([]);
    const retry = THEN_KINDS.includes(act) ? fc.boolean() : fc.constant(false);
    return fc.tuple(exe, then, err, retry).map(([exe, then, err, retry]) => {
      const built: Record<string, unknown> = { act, exe: then.length ? { ...exe, actions: then } : exe };
      if (err.length) built.err = err;
      if (retry) built.retry = true;
      return built;
    });
  });
}
const chain = (place: Place, depth: number, inThenChain: boolean) => fc.array(action(place, depth, inThenChain), { maxLength: 2 });

const validTicket = fc.record(
  {
    description: text,
    count: fc.oneof(fc.nat(1000), fc.constant(null)),
    limit_per_user: fc.oneof(fc.boolean(), fc.nat(10), fc.constant(null)),
    time_to_live: fc.oneof(fc.constant(null), fc.integer({ min: Date.now() + DAY, max: Date.now() + 365 * DAY })),
    condition,
    actions: chain({ inThen: false, inErr: false }, 2, false),
    idempotency: fc.record(
      {
        key: fc.constantFrom('${headers[webhook-id]}', '${headers[X-GitHub-Delivery]}', '${body[id]}', '${body[data][object][id]}', '${params[event]}'),
        window: fc.constantFrom('1s', '90s', '30m', '24h', '168h', '7d'),
      },
      { requiredKeys: ['key'] },
    ),
    retry_schedule: fc.oneof(
      fc.constant(true),
      fc.record(
        {
          delays: fc.array(fc.constantFrom('1s', '5s', '90s', '30m', '2h', '24h'), { minLength: 1, maxLength: 5 }),
          within: fc.constantFrom('1d', '3d', '72h', '7d'),
          on: fc.record(
            { statuses: fc.array(fc.constantFrom(408, 409, 429, 500, 503, '5xx' as const), { maxLength: 4 }), network: fc.boolean(), timeout: fc.boolean() },
            { requiredKeys: [] },
          ),
        },
        { requiredKeys: [] },
      ),
    ),
  },
  { requiredKeys: ['actions'] },
);

describe('round trip of the ticket registry', () => {
  it('every valid ticket, as getTickets lists it to the owner, registers again unchanged', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(validTicket, async (ticket) => {
        const ticketId = `rt-${++run}`;
        const registered = await put(ticketId, ticket);
        expect(registered.json).toMatchObject({ ticket_id: ticketId });
        const first = await listed(ticketId);
        const saved = await put(ticketId, first);
        expect(saved.json).toMatchObject({ ticket_id: ticketId });
        expect(saved.status).toBe(200);
        expect({ ...(await listed(ticketId)), updated: first.updated }).toEqual(first);
      }),
      { numRuns: 50 },
    );
  }, 120_000);

  it("every ticket as the owner lists it is what the listing's answer schema describes, no member left out", async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(validTicket, async (ticket) => {
        const ticketId = `schema-${++run}`;
        expect((await put(ticketId, ticket)).json).toMatchObject({ ticket_id: ticketId });
        const first = await listed(ticketId);
        // parse drops members the schema does not name, so equality shows none was left out.
        expect(ownerTicketAnswer.parse(first)).toEqual(first);
      }),
      { numRuns: 30 },
    );
  }, 120_000);

  it('a signature without timestamp is stored and listed without tolerance', async () => {
    const signature = { secretName: 'sig-a', header: 'X-Hub-Signature-256', parts: ['sha256=${signature}'] };
    expect((await put('rt-no-timestamp', { condition: { signature }, actions: [] })).status).toBe(201);
    expect((await listed('rt-no-timestamp')).condition.signature).not.toHaveProperty('tolerance');
    const timed = { ...signature, timestamp: '${header:X-Ts}' };
    expect((await put('rt-timestamp', { condition: { signature: timed }, actions: [] })).status).toBe(201);
    expect((await listed('rt-timestamp')).condition.signature).toMatchObject({ timestamp: '${header:X-Ts}', tolerance: 300 });
  });

  it('a stored ticket of an earlier version (tolerance 300 without timestamp) registers again, without the tolerance', async () => {
    const now = Date.now();
    const legacy: StoredTicket = {
      ticket_id: 'rt-legacy',
      condition: {
        signature: {
          secretName: 'sig-a',
          header: 'X-Sig',
          algorithm: 'sha256',
          encoding: 'hex',
          parts: ['${signature}'],
          signed: '${body}',
          tolerance: 300,
          secret_encoding: 'raw',
        },
      },
      actions: [],
      timestamp: now,
      updated: now,
      rules_version: 2,
    };
    await ticketStub(env, project.service_id, legacy.ticket_id).store(legacy, null);
    await saveDirectoryEntry(env, project.service_id, legacy);
    const stored = await listed(legacy.ticket_id);
    expect(stored.condition.signature.tolerance).toBe(300);

    const saved = await put(legacy.ticket_id, stored);
    expect(saved.status).toBe(200);
    const { tolerance: _dropped, ...withoutTolerance } = stored.condition.signature;
    expect((await listed(legacy.ticket_id)).condition.signature).toEqual(withoutTolerance);
  });

  it('a tolerance other than the old default is still refused without a timestamp', async () => {
    const res = await put('rt-tolerance', { condition: { signature: { secretName: 'sig-a', header: 'X-Sig', tolerance: 60 } }, actions: [] });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({
      code: 'INVALID_PARAMETER',
      message: expect.stringMatching(/^condition.signature.tolerance: applies only with timestamp/),
    });
  });
});
