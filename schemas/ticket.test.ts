import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { Checked, FieldIssue } from './field-issue';
import { VALID_REFERENCE_FORMS } from './references';
import { ticketRegistrationSchema, validateTicketId, validateTicketRegistration, type RegistrationLookups, type ValidatedTicket } from './ticket';

const NOW = 1_800_000_000_000;
const TICKET_ID = 'order-paid';

/** The project's store as registration sees it: one secret key, one mail template, three newsletters. */
const lookups: RegistrationLookups = {
  secretExists: async (name) => name === 'stripe',
  templateExists: async (id) => id === 'welcome',
  newsletterExists: async (group, id) => (group === 'public' && id === 'news-1') || (group === '5' && id === 'n5') || (group === 'vip' && id === 'vip-1'),
};

const check = (body: unknown, id = TICKET_ID) => validateTicketRegistration(id, body, lookups, NOW);
const register = async (body: unknown, id = TICKET_ID): Promise<ValidatedTicket> => {
  const result = await check(body, id);
  if (!result.ok) throw new Error(`refused: ${result.issue.message}`);
  return result.value;
};
/** The issue a refused registration returns. */
const refusal = async (result: Promise<Checked<ValidatedTicket>>): Promise<FieldIssue> => {
  const settled = await result;
  if (settled.ok) throw new Error('expected a refusal');
  return settled.issue;
};

type Json = Record<string, unknown>;
const ticket = (extra: Json = {}): Json => ({ actions: [], ...extra });
const withCondition = (condition: Json): Json => ticket({ condition });
const withActions = (...actions: Json[]): Json => ticket({ actions });
const signature = (extra: Json = {}): Json => withCondition({ signature: { secretName: 'stripe', header: 'Stripe-Signature', ...extra } });
const req = (exe: Json = {}, extra: Json = {}): Json => ({ act: 'req', exe: { url: 'https://api.example.com/x', ...exe }, ...extra });
const pstr = (exe: Json = {}): Json => ({ act: 'pstr', exe: { table: { name: 'orders', access_group: 'public' }, ...exe } });
const resp = (exe: Json = {}, extra: Json = {}): Json => ({ act: 'resp', exe, ...extra });
const cond = (...rows: Json[]): Json => ({ act: 'cond', exe: { response: rows } });
const mail = (exe: Json = {}): Json => ({ act: 'mail', exe: { template: 'welcome', to: 'a@example.com', ...exe } });
const nlsd = (exe: Json = {}): Json => ({ act: 'nlsd', exe: { group: 'public', newsletter: 'news-1', ...exe } });
/** A req whose Then chain holds the given actions. */
const then = (...actions: Json[]): Json => req({ actions });
const repeat = <T>(n: number, make: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => make(i));

const exe0 = (v: ValidatedTicket) => v.ticket.actions[0].exe;

interface Accepted {
  rule: string;
  body: unknown;
  id?: string;
  stored?: (v: ValidatedTicket) => void;
}
interface Refused {
  rule: string;
  body: unknown;
  id?: string;
  /** The field path the message must start with. */
  path: string;
  /** Text the message must also hold. */
  says?: string;
}

const accepted: Accepted[] = [
  // ticket
  { rule: 'ticket_id may hold letters, digits, _ and -', id: 'Order_paid-2', body: ticket() },
  { rule: 'ticket_id may be 64 characters', id: 'a'.repeat(64), body: ticket() },
  {
    rule: 'a ticket_id member equal to the path id is accepted',
    body: ticket({ ticket_id: TICKET_ID }),
    stored: (v) => expect(v.ticket.ticket_id).toBe(TICKET_ID),
  },
  { rule: 'description up to 500 chars', body: ticket({ description: 'd'.repeat(500) }), stored: (v) => expect(v.ticket.description).toHaveLength(500) },
  { rule: 'count 0 exhausts the ticket', body: ticket({ count: 0 }), stored: (v) => expect([v.count, v.ticket.count]).toEqual([0, 0]) },
  { rule: 'count n sets the remaining count', body: ticket({ count: 7 }), stored: (v) => expect(v.count).toBe(7) },
  { rule: 'count null = unlimited', body: ticket({ count: null }), stored: (v) => expect(v.count).toBeNull() },
  { rule: "count '' is blank", body: ticket({ count: '' }), stored: (v) => expect([v.count, 'count' in v.ticket]).toEqual([undefined, false]) },
  { rule: 'count absent is blank', body: ticket(), stored: (v) => expect(v.count).toBeUndefined() },
  { rule: 'limit_per_user true = 1', body: ticket({ limit_per_user: true }), stored: (v) => expect(v.ticket.limit_per_user).toBe(1) },
  { rule: 'limit_per_user n = n', body: ticket({ limit_per_user: 3 }), stored: (v) => expect(v.ticket.limit_per_user).toBe(3) },
  ...[false, 0, null].map((limit) => ({
    rule: `limit_per_user ${limit} = unlimited (stored absent)`,
    body: ticket({ limit_per_user: limit }),
    stored: (v: ValidatedTicket) => expect('limit_per_user' in v.ticket).toBe(false),
  })),
  { rule: 'time_to_live in the future', body: ticket({ time_to_live: NOW + 1 }), stored: (v) => expect(v.ticket.time_to_live).toBe(NOW + 1) },
  { rule: 'time_to_live null = never', body: ticket({ time_to_live: null }), stored: (v) => expect('time_to_live' in v.ticket).toBe(false) },
  {
    rule: 'read-only members of a listed ticket are ignored',
    body: ticket({ timestamp: 1, updated: 2, rules_version: 1, legacy: true }),
    stored: (v) => expect(v.ticket.rules_version).toBe(2),
  },
  {
    rule: 'the stored form carries rules_version 2 and an empty condition when none is given',
    body: ticket(),
    stored: (v) => expect(v.ticket).toEqual({ ticket_id: TICKET_ID, condition: {}, actions: [], rules_version: 2 }),
  },
  { rule: 'condition null = no condition', body: ticket({ condition: null }), stored: (v) => expect(v.ticket.condition).toEqual({}) },

  // condition parts
  {
    rule: 'return200 and method are stored',
    body: withCondition({ return200: true, method: 'POST' }),
    stored: (v) => expect(v.ticket.condition).toEqual({ return200: true, method: 'POST' }),
  },
  {
    rule: 'data rows are stored as body rows',
    body: withCondition({ data: [{ key: 'type', operator: '=', value: 'paid' }] }),
    stored: (v) => expect(v.ticket.condition).toEqual({ body: [{ key: 'type', operator: '=', value: 'paid' }] }),
  },
  {
    rule: 'body rows on a POST ticket',
    body: withCondition({ method: 'POST', body: [{ key: 'a', operator: '=', value: 1 }] }),
    stored: (v) => expect(v.ticket.condition.body).toHaveLength(1),
  },
  {
    rule: 'params rows on a GET ticket',
    body: withCondition({ method: 'GET', params: [{ key: 'qty', operator: '>', value: 2 }] }),
    stored: (v) => expect(v.ticket.condition.params).toEqual([{ key: 'qty', operator: '>', value: 2 }]),
  },
  {
    rule: 'an empty body list on a GET ticket is no part',
    body: withCondition({ method: 'GET', body: [] }),
    stored: (v) => expect('body' in v.ticket.condition).toBe(false),
  },
  ...(['', [], null, undefined] as const).map((value) => ({
    rule: `ip with value ${JSON.stringify(value)} is dropped (no check)`,
    body: withCondition({ ip: { operator: '=', value }, user_agent: { operator: '=', value } }),
    stored: (v: ValidatedTicket) => expect(v.ticket.condition).toEqual({}),
  })),
  {
    rule: 'ip and user_agent with a value are stored',
    body: withCondition({ ip: { operator: '!=', value: ['1.2.3.4'] }, user_agent: { operator: '>=', value: 'curl' } }),
    stored: (v) => expect(v.ticket.condition).toEqual({ ip: { operator: '!=', value: ['1.2.3.4'] }, user_agent: { operator: '>=', value: 'curl' } }),
  },
  {
    rule: 'headers rows with a string or a list',
    body: withCondition({
      headers: [
        { key: 'X-Event', operator: '=', value: ['a', 'b'] },
        { key: 'x-id', operator: 'ne', value: '' },
      ],
    }),
    stored: (v) => expect(v.ticket.condition.headers).toHaveLength(2),
  },
  {
    rule: 'a capture-only body row (no operator) with a placeholder',
    body: withCondition({ body: [{ key: 'order[id]', placeholder: 'ORDER_ID' }] }),
    stored: (v) => expect(v.ticket.condition.body).toEqual([{ key: 'order[id]', placeholder: 'ORDER_ID' }]),
  },
  {
    rule: 'a body row keeps null apart from an absent value',
    body: withCondition({
      body: [
        { key: 'a', operator: '=', value: null },
        { key: 'b', operator: '=' },
      ],
    }),
    stored: (v) =>
      expect(v.ticket.condition.body).toEqual([
        { key: 'a', operator: '=', value: null },
        { key: 'b', operator: '=' },
      ]),
  },
  {
    rule: 'a body row value may be a list of scalars, with setValueWhenMatch of any type',
    body: withCondition({ body: [{ key: 'a', operator: '=', value: ['x', 1, true, null], setValueWhenMatch: { any: ['json'] } }] }),
    stored: (v) => expect(v.ticket.condition.body?.[0].setValueWhenMatch).toEqual({ any: ['json'] }),
  },
  {
    rule: 'condition values are literal: ${...} in them is not checked',
    body: withCondition({ body: [{ key: 'a', operator: '=', value: '${id}' }], headers: [{ key: 'x', operator: '=', value: '${nope}' }] }),
    stored: (v) => expect(v.ticket.condition.body?.[0].value).toBe('${id}'),
  },
  {
    rule: 'user rows with a scalar or a list',
    body: withCondition({
      user: [
        { key: 'email_verified', operator: '=', value: true },
        { key: 'access_group', operator: '>=', value: [1, 2] },
      ],
    }),
    stored: (v) => expect(v.ticket.condition.user).toHaveLength(2),
  },
  { rule: 'record_access is stored', body: withCondition({ record_access: 'rec_1' }), stored: (v) => expect(v.ticket.condition.record_access).toBe('rec_1') },
  { rule: "record_access '' is no part", body: withCondition({ record_access: '' }), stored: (v) => expect(v.ticket.condition).toEqual({}) },
  {
    rule: 'every operator of the spec is accepted',
    body: withCondition({
      params: ['=', '!=', '>', '>=', '<', '<=', 'eq', 'ne', 'gt', 'gte', 'lt', 'lte'].map((operator) => ({ key: 'a', operator, value: 1 })),
    }),
    stored: (v) => expect(v.ticket.condition.params).toHaveLength(12),
  },

  // signature
  {
    rule: 'signature defaults are filled in the stored form',
    body: signature(),
    stored: (v) =>
      expect(v.ticket.condition.signature).toEqual({
        secretName: 'stripe',
        header: 'Stripe-Signature',
        algorithm: 'sha256',
        encoding: 'hex',
        parts: ['${signature}'],
        signed: '${body}',
        secret_encoding: 'raw',
      }),
  },
  {
    rule: 'signature.secret (older name) is stored as secretName',
    body: withCondition({ signature: { secret: 'stripe', header: 'X-Sig' } }),
    stored: (v) => expect(v.ticket.condition.signature).toMatchObject({ secretName: 'stripe' }),
  },
  { rule: 'signature.header up to 256 chars', body: signature({ header: 'h'.repeat(256) }) },
  {
    rule: 'signature algorithm, encoding, secret_encoding and secret_prefix are kept',
    body: signature({ algorithm: 'sha512', encoding: 'base64', secret_encoding: 'base64', secret_prefix: 'p'.repeat(64) }),
    stored: (v) =>
      expect(v.ticket.condition.signature).toMatchObject({ algorithm: 'sha512', encoding: 'base64', secret_encoding: 'base64', secret_prefix: 'p'.repeat(64) }),
  },
  {
    rule: 'Stripe-style signature: separator, captures, signed and timestamp templates, tolerance',
    body: signature({ separator: ',', parts: ['t=${ts}', 'v1=${signature}'], signed: '${ts}.${body}', timestamp: '${ts}', tolerance: 60 }),
    stored: (v) => expect(v.ticket.condition.signature).toMatchObject({ separator: ',', timestamp: '${ts}', tolerance: 60 }),
  },
  { rule: 'signature.separator of 8 chars', body: signature({ separator: '12345678' }) },
  { rule: 'signature.parts: 10 parts of 256 chars', body: signature({ parts: ['${signature}', ...repeat(9, () => 'x'.repeat(256))] }) },
  {
    rule: 'signature.signed may read ${method} and ${header:Name}, up to 512 chars',
    body: signature({ signed: '${method}.${header:X-Ts}.${body}' + 'x'.repeat(512 - 32) }),
  },
  {
    rule: 'signature.tolerance 1 and 86400 with a timestamp',
    body: withCondition({ signature: { secretName: 'stripe', header: 'X-Sig', timestamp: '${header:X-Ts}', tolerance: 86_400 } }),
  },

  // actions in general
  { rule: '50 actions in total, nested ones included', body: withActions(...repeat(24, () => then(pstr())), pstr(), pstr()) },
  { rule: 'retry on a req action is stored', body: withActions(req({}, { retry: true })), stored: (v) => expect(v.ticket.actions[0].retry).toBe(true) },
  {
    rule: 'cond directly in a Then chain',
    body: withActions(then(cond({ key: 'status', operator: '=', value: 200 }))),
    stored: (v) => expect(exe0(v).actions?.[0].act).toBe('cond'),
  },
  {
    rule: 'an err chain holds any action but cond',
    body: withActions(req({}, { err: [pstr({ data: { why: '${error[message]}' } })] })),
    stored: (v) => expect(v.ticket.actions[0].err?.[0].act).toBe('pstr'),
  },
  ...['acsg', 'acsr', 'pstr', 'req', 'mail', 'nlsd'].map((act) => ({
    rule: `${act} has a Then chain`,
    body: withActions({
      ...{ acsg: { act: 'acsg', exe: { group: 2 } }, acsr: { act: 'acsr', exe: { record_id: 'r1' } }, pstr: pstr(), req: req(), mail: mail(), nlsd: nlsd() }[
        act
      ],
      exe: {
        ...({ acsg: { group: 2 }, acsr: { record_id: 'r1' }, pstr: pstr().exe, req: req().exe, mail: mail().exe, nlsd: nlsd().exe } as Record<string, Json>)[
          act
        ],
        actions: [resp({ body: '${response}' })],
      },
    }),
    stored: (v: ValidatedTicket) => expect(exe0(v).actions).toHaveLength(1),
  })),

  // acsg, acsr
  { rule: 'acsg group 1..99', body: withActions({ act: 'acsg', exe: { group: 99 } }, { act: 'acsg', exe: { group: 1, user_id: '${body[user]}' } }) },
  { rule: "acsg group 'admin' is stored as 99", body: withActions({ act: 'acsg', exe: { group: 'admin' } }), stored: (v) => expect(exe0(v).group).toBe(99) },
  {
    rule: 'acsg group may be a reference',
    body: withActions({ act: 'acsg', exe: { group: '${placeholder[GROUP]}' } }),
    stored: (v) => expect(exe0(v).group).toBe('${placeholder[GROUP]}'),
  },
  {
    rule: 'acsr record_id with one user_id or a list',
    body: withActions({ act: 'acsr', exe: { record_id: '${body[rec]}', user_id: ['u1', '${user[id]}'] } }),
    stored: (v) => expect(exe0(v)).toEqual({ record_id: '${body[rec]}', user_id: ['u1', '${user[id]}'] }),
  },

  // pstr
  {
    rule: 'pstr with every allowed key',
    body: withActions({
      act: 'pstr',
      exe: {
        table: {
          name: 'orders',
          access_group: 'private',
          subscription: {
            is_subscription_record: true,
            upload_to_feed: false,
            notify_subscribers: true,
            feed_referencing_records: true,
            notify_referencing_records: false,
          },
        },
        data: { id: '${body[id]}', n: 1 },
        index: { name: 'status', value: 'paid' },
        tags: ['a', '${placeholder[TAG]}'],
        unique_id: '${body[id]}',
        record_id: 'rec_1',
        reference: null,
        readonly: true,
        source: {
          referencing_limit: null,
          prevent_multiple_referencing: true,
          can_remove_referencing_records: false,
          only_granted_can_reference: true,
          referencing_index_restrictions: [{ name: 'n', value: 1, range: 5, condition: 'gte' }],
          allow_granted_to_grant_others: false,
        },
        user_id: '${user[id]}',
      },
    }),
    stored: (v) => expect(exe0(v)).toMatchObject({ table: { access_group: 'private' }, readonly: true, reference: null }),
  },
  {
    rule: 'pstr table access_group 0..99 or a named level',
    body: withActions(
      pstr({ table: { name: 't', access_group: 0 } }),
      pstr({ table: { name: 't', access_group: 99 } }),
      pstr({ table: { name: 't', access_group: 'authorized' } }),
    ),
  },
  { rule: 'pstr subscription null needs no user_id', body: withActions(pstr({ table: { name: 't', access_group: 'public', subscription: null } })) },
  { rule: 'pstr referencing_index_restrictions null removes all restrictions', body: withActions(pstr({ source: { referencing_index_restrictions: null } })) },

  // req
  {
    rule: 'req url with references after the host; method defaults to GET',
    body: withActions(req({ url: 'https://api.example.com/orders/${body[id]}?q=${params[q]}' })),
    stored: (v) => expect(exe0(v)).toEqual({ url: 'https://api.example.com/orders/${body[id]}?q=${params[q]}', method: 'GET' }),
  },
  { rule: 'req url may take its host from a reference when no secretName is set', body: withActions(req({ url: 'https://${placeholder[HOST]}/hook' })) },
  {
    rule: 'req url may take its port from a reference when no secretName is set',
    body: withActions(req({ url: 'http://api.example.com:${placeholder[PORT]}/hook' })),
  },
  {
    rule: 'req url with secretName and a written-out host',
    body: withActions(req({ url: 'https://api.example.com/${body[path]}', secretName: 'stripe' })),
    stored: (v) => expect(exe0(v).secretName).toBe('stripe'),
  },
  { rule: 'req methods GET, POST, PUT, DELETE', body: withActions(...['GET', 'POST', 'PUT', 'DELETE'].map((method) => req({ method }))) },
  {
    rule: 'req headers: names and Latin-1 values with references',
    body: withActions(req({ headers: { 'Content-Type': 'application/json', 'X-Name': 'café ${body[name]}' } })),
  },
  { rule: 'req header value: a reference may bring any text (checked at run time)', body: withActions(req({ headers: { 'X-Id': '${body[id]}' } })) },
  {
    rule: '${CLIENT_SECRET} in headers, data and params (any depth) of a req with secretName',
    body: withActions(
      req({
        secretName: 'stripe',
        headers: { Authorization: 'Bearer ${CLIENT_SECRET}' },
        data: { auth: { key: '${CLIENT_SECRET}' } },
        params: { k: ['${CLIENT_SECRET}'] },
      }),
    ),
  },
  {
    rule: 'req data of any type and params object',
    body: withActions(req({ method: 'POST', data: [1, 'x', null, { a: true }], params: { n: 1, o: { a: '${ip}' } } })),
  },

  // mail, nlsd
  {
    rule: 'mail with a stored template, an address and placeholders',
    body: withActions(mail({ placeholders: { name: '${user[name]}', n: 1, ok: true } })),
    stored: (v) => expect(exe0(v)).toEqual({ template: 'welcome', to: 'a@example.com', placeholders: { name: '${user[name]}', n: 1, ok: true } }),
  },
  {
    rule: 'mail to may be a reference',
    body: withActions(mail({ to: '${user[email]}' }), mail({ to: '${data[email]}' })),
    stored: (v) => expect(v.ticket.actions[1].exe.to).toBe('${body[email]}'),
  },
  { rule: 'mail placeholders: 30', body: withActions(mail({ placeholders: Object.fromEntries(repeat(30, (i) => [`p${i}`, i])) })) },
  {
    rule: "nlsd group 'public', 'authorized', 2..99 or a name",
    body: withActions(nlsd(), nlsd({ group: 5, newsletter: 'n5' }), nlsd({ group: 'vip', newsletter: 'vip-1' })),
  },

  // resp
  {
    rule: 'resp defaults: status 200, resume stop, body absent',
    body: withActions(resp()),
    stored: (v) => expect(exe0(v)).toEqual({ status: 200, resume: 'stop' }),
  },
  { rule: 'resp status 100..599 or a reference', body: withActions(resp({ status: 100 }), resp({ status: 599 }), resp({ status: '${placeholder[STATUS]}' })) },
  {
    rule: 'resp body of any JSON, a nested stage key allowed',
    body: withActions(resp({ body: { ok: '${body[id]}', nested: { stage: 1 } } }), resp({ body: ['stage'] }), resp({ body: 'text' })),
  },
  { rule: "resp resume 'stop', '0m', '10m', '2h', '3d'", body: withActions(...['stop', '0m', '10m', '2h', '3d'].map((resume) => resp({ resume }))) },
  { rule: 'resp resume a future time in ms or a reference', body: withActions(resp({ resume: NOW + 60_000 }), resp({ resume: '${body[when]}' })) },

  // cond
  {
    rule: 'cond rows read ${response} and ${placeholder} in value and setValueWhenMatch',
    body: withActions(
      then(
        cond(
          { key: 'body[status]', operator: '=', value: '${placeholder[S]}', setValueWhenMatch: { s: '${response[body][status]}' }, placeholder: 'ST' },
          { key: '', placeholder: 'WHOLE' },
        ),
      ),
    ),
    stored: (v) => expect(exe0(v).actions?.[0].exe.response).toHaveLength(2),
  },

  // templating context
  { rule: '${response} inside a Then chain', body: withActions(then(req({ data: '${response[body][id]}' }))) },
  {
    rule: '${response} in an err chain nested in a Then chain',
    body: withActions(then(req({}, { err: [pstr({ data: { r: '${response[status]}', e: '${error[code]}' } })] }))),
  },
  { rule: '${error} in an err chain', body: withActions(req({}, { err: [resp({ body: { code: '${error[code]}' } })] })) },
  {
    rule: '${error} in a Then chain nested in an err chain',
    body: withActions(req({}, { err: [then(resp({ body: '${error[message]} ${response[status]}' }))] })),
  },
  {
    rule: '${data...} in a templated string is stored as ${body...}',
    body: withActions(req({ url: 'https://a.example/${data[id]}', data: { x: ['${data}'] } })),
    stored: (v) => expect(exe0(v)).toMatchObject({ url: 'https://a.example/${body[id]}', data: { x: ['${body}'] } }),
  },
  {
    rule: '$${...} is a literal and is stored as written',
    body: withActions(resp({ body: 'write $${body[x]}' })),
    stored: (v) => expect(exe0(v).body).toBe('write $${body[x]}'),
  },
];

const refused: Refused[] = [
  // ticket
  ...['', '-x', '_x', 'a b', 'a.b', 'a'.repeat(65)].map((id) => ({
    rule: `ticket_id pattern refuses ${JSON.stringify(id)}`,
    id,
    body: ticket(),
    path: 'ticket_id',
  })),
  ...['#x', '!x', 'a/b'].map((id) => ({ rule: `ticket_id reserves #, ! and / (${id})`, id, body: ticket(), path: 'ticket_id', says: 'reserved' })),
  { rule: 'a ticket_id member must equal the path id', body: ticket({ ticket_id: 'other' }), path: 'ticket_id' },
  { rule: 'the body is a JSON object', body: [], path: '', says: 'JSON object' },
  { rule: 'the body is not null', body: null, path: '', says: 'JSON object' },
  { rule: 'actions is required', body: {}, path: 'actions', says: 'required' },
  { rule: 'an unknown top-level key is refused', body: ticket({ time_to_life: 5 }), path: 'time_to_life', says: 'accepted keys' },
  { rule: 'description over 500 chars', body: ticket({ description: 'd'.repeat(501) }), path: 'description' },
  { rule: 'description is a string', body: ticket({ description: 5 }), path: 'description' },
  ...[-1, 1.5, 'x', true].map((count) => ({ rule: `count refuses ${JSON.stringify(count)}`, body: ticket({ count }), path: 'count' })),
  ...[-1, 1.5, 'x'].map((limit) => ({
    rule: `limit_per_user refuses ${JSON.stringify(limit)}`,
    body: ticket({ limit_per_user: limit }),
    path: 'limit_per_user',
  })),
  { rule: 'time_to_live in the past', body: ticket({ time_to_live: NOW - 1 }), path: 'time_to_live', says: 'future' },
  { rule: 'time_to_live now is not in the future', body: ticket({ time_to_live: NOW }), path: 'time_to_live' },
  { rule: 'time_to_live is a number', body: ticket({ time_to_live: '2030-01-01' }), path: 'time_to_live' },

  // condition
  { rule: 'condition is a strict object', body: withCondition({ query: [] }), path: 'condition.query', says: 'accepted keys' },
  {
    rule: 'the removed request condition is refused with the fix',
    body: withCondition({ request: { url: 'https://x.example' } }),
    path: 'condition.request',
    says: 'cond action',
  },
  { rule: 'a blank request condition is refused too', body: withCondition({ request: '' }), path: 'condition.request' },
  { rule: 'condition.method GET or POST', body: withCondition({ method: 'PUT' }), path: 'condition.method' },
  { rule: 'return200 is a boolean', body: withCondition({ return200: 'yes' }), path: 'condition.return200' },
  {
    rule: 'body rows on a GET ticket',
    body: withCondition({ method: 'GET', body: [{ key: 'a', operator: '=', value: 1 }] }),
    path: 'condition.body',
    says: 'GET',
  },
  {
    rule: 'data rows on a GET ticket',
    body: withCondition({ method: 'GET', data: [{ key: 'a', operator: '=', value: 1 }] }),
    path: 'condition.data',
    says: 'GET',
  },
  { rule: 'data and body together', body: withCondition({ body: [], data: [] }), path: 'condition.data' },
  { rule: 'ip with a value needs an operator', body: withCondition({ ip: { value: '1.2.3.4' } }), path: 'condition.ip.operator' },
  { rule: 'ip value is a string or strings', body: withCondition({ ip: { operator: '=', value: 5 } }), path: 'condition.ip.value' },
  { rule: 'user_agent is a strict object', body: withCondition({ user_agent: { operator: '=', value: 'x', key: 'y' } }), path: 'condition.user_agent.key' },
  {
    rule: 'a headers row with a null value',
    body: withCondition({ headers: [{ key: 'X-A', operator: '=', value: null }] }),
    path: 'condition.headers[0].value',
    says: 'null',
  },
  {
    rule: 'a headers row needs a value',
    body: withCondition({ headers: [{ key: 'X-A', operator: '=' }] }),
    path: 'condition.headers[0].value',
    says: 'required',
  },
  {
    rule: 'a headers row key is a header name',
    body: withCondition({ headers: [{ key: 'X A', operator: '=', value: 'v' }] }),
    path: 'condition.headers[0].key',
  },
  {
    rule: 'an unknown operator',
    body: withCondition({ params: [{ key: 'a', operator: '==', value: 1 }] }),
    path: 'condition.params[0].operator',
    says: 'must be one of',
  },
  { rule: 'a body row key is a string', body: withCondition({ body: [{ key: 1, operator: '=' }] }), path: 'condition.body[0].key' },
  { rule: 'a body row key follows the path syntax', body: withCondition({ body: [{ key: 'order[id', operator: '=' }] }), path: 'condition.body[0].key' },
  {
    rule: 'a body row value is a scalar or a list of scalars',
    body: withCondition({ body: [{ key: 'a', operator: '=', value: { x: 1 } }] }),
    path: 'condition.body[0].value',
  },
  {
    rule: 'a body row value list holds scalars only',
    body: withCondition({ params: [{ key: 'a', operator: '=', value: [[1]] }] }),
    path: 'condition.params[0].value[0]',
  },
  {
    rule: 'a placeholder name follows ^[A-Za-z_][A-Za-z0-9_]*$',
    body: withCondition({ body: [{ key: 'a', placeholder: '1st' }] }),
    path: 'condition.body[0].placeholder',
  },
  {
    rule: 'a user row with a null value',
    body: withCondition({ user: [{ key: 'email', operator: '=', value: null }] }),
    path: 'condition.user[0].value',
    says: 'null',
  },
  { rule: 'a user row needs a value', body: withCondition({ user: [{ key: 'email', operator: '=' }] }), path: 'condition.user[0].value', says: 'required' },
  { rule: 'record_access is a string', body: withCondition({ record_access: 5 }), path: 'condition.record_access' },

  // signature
  {
    rule: 'signature.secretName is required',
    body: withCondition({ signature: { header: 'X-Sig' } }),
    path: 'condition.signature.secretName',
    says: 'required',
  },
  {
    rule: 'signature.secretName must exist in the project',
    body: signature({ secretName: 'nope' }),
    path: 'condition.signature.secretName',
    says: 'no Secret Key',
  },
  {
    rule: 'signature.secret (older name) must exist too',
    body: withCondition({ signature: { secret: 'nope', header: 'X-Sig' } }),
    path: 'condition.signature.secretName',
  },
  { rule: 'signature: secret and secretName together', body: signature({ secret: 'stripe' }), path: 'condition.signature.secret' },
  { rule: 'signature.header is required', body: withCondition({ signature: { secretName: 'stripe' } }), path: 'condition.signature.header', says: 'required' },
  { rule: 'signature.header up to 256 chars', body: signature({ header: 'h'.repeat(257) }), path: 'condition.signature.header' },
  { rule: 'signature.algorithm sha256, sha1 or sha512', body: signature({ algorithm: 'md5' }), path: 'condition.signature.algorithm' },
  { rule: 'signature.encoding hex or base64', body: signature({ encoding: 'base32' }), path: 'condition.signature.encoding' },
  { rule: 'signature.separator at least 1 char', body: signature({ separator: '' }), path: 'condition.signature.separator' },
  { rule: 'signature.separator at most 8 chars', body: signature({ separator: '123456789' }), path: 'condition.signature.separator' },
  { rule: 'signature.parts at most 10', body: signature({ parts: repeat(11, () => '${signature}') }), path: 'condition.signature.parts' },
  { rule: 'signature.parts each at most 256 chars', body: signature({ parts: ['${signature}' + 'x'.repeat(250)] }), path: 'condition.signature.parts[0]' },
  {
    rule: 'signature.parts: at most one capture per part',
    body: signature({ parts: ['${t}.${signature}'] }),
    path: 'condition.signature.parts[0]',
    says: 'more than one',
  },
  {
    rule: 'signature.parts: one part captures ${signature}',
    body: signature({ parts: ['v1=${sig}'] }),
    path: 'condition.signature.parts',
    says: '${signature}',
  },
  { rule: 'signature.parts: a capture name is an identifier', body: signature({ parts: ['${sig nature}'] }), path: 'condition.signature.parts[0]' },
  { rule: 'signature.signed up to 512 chars', body: signature({ signed: '${body}' + 'x'.repeat(506) }), path: 'condition.signature.signed' },
  {
    rule: 'signature.signed reads only ${body}, ${method}, ${header:Name} and captures',
    body: signature({ signed: '${ts}.${body}' }),
    path: 'condition.signature.signed',
    says: '${ts}',
  },
  { rule: 'signature.signed refuses a reference of the action grammar', body: signature({ signed: '${body[id]}' }), path: 'condition.signature.signed' },
  { rule: 'signature.timestamp reads the same tokens', body: signature({ timestamp: '${params[t]}' }), path: 'condition.signature.timestamp' },
  { rule: 'signature.tolerance at least 1', body: signature({ timestamp: '${header:X-Ts}', tolerance: 0 }), path: 'condition.signature.tolerance' },
  { rule: 'signature.tolerance at most 86400', body: signature({ timestamp: '${header:X-Ts}', tolerance: 86_401 }), path: 'condition.signature.tolerance' },
  { rule: 'signature.tolerance only with timestamp', body: signature({ tolerance: 60 }), path: 'condition.signature.tolerance', says: 'timestamp' },
  { rule: 'signature.secret_encoding raw, base64 or hex', body: signature({ secret_encoding: 'utf8' }), path: 'condition.signature.secret_encoding' },
  { rule: 'signature.secret_prefix up to 64 chars', body: signature({ secret_prefix: 'p'.repeat(65) }), path: 'condition.signature.secret_prefix' },

  // actions in general
  { rule: 'actions is an array', body: { actions: {} }, path: 'actions' },
  { rule: 'more than 50 actions in total, nested ones included', body: withActions(...repeat(25, () => then(pstr())), pstr()), path: 'actions', says: '51' },
  { rule: 'nested err chains count toward 50', body: withActions(...repeat(17, () => req({}, { err: [then(pstr())] }))), path: 'actions', says: '51' },
  { rule: 'an unknown act', body: withActions({ act: 'exec', exe: {} }), path: 'actions[0].act', says: 'must be one of' },
  { rule: 'an action without exe', body: withActions({ act: 'resp' }), path: 'actions[0].exe', says: 'required' },
  {
    rule: 'an action carrying condition is refused with the fix',
    body: withActions(req({}, { condition: { status: 200 } })),
    path: 'actions[0].condition',
    says: 'cond action inside exe.actions (the Then chain)',
  },
  { rule: 'an action carrying match is refused with the fix', body: withActions(req({}, { match: [] })), path: 'actions[0].match', says: 'cond action' },
  { rule: 'a req exe carrying match is refused with the fix', body: withActions(req({ match: [] })), path: 'actions[0].exe.match', says: 'cond action' },
  {
    rule: 'a req exe carrying condition is refused with the fix, even with other faults',
    body: withActions(req({ url: 5, condition: {} })),
    path: 'actions[0].exe.condition',
    says: 'cond action',
  },
  { rule: 'retry is a boolean', body: withActions(req({}, { retry: 'yes' })), path: 'actions[0].retry' },
  { rule: 'retry is refused on resp', body: withActions(resp({}, { retry: true })), path: 'actions[0].retry', says: 'not available' },
  { rule: 'retry is refused on cond', body: withActions(then({ ...cond(), retry: false })), path: 'actions[0].exe.actions[0].retry', says: 'not available' },
  { rule: 'cond is refused at the top level', body: withActions(cond({ key: 'a', operator: '=', value: 1 })), path: 'actions[0].act', says: 'Then chain' },
  { rule: 'cond is refused in an err chain', body: withActions(req({}, { err: [cond()] })), path: 'actions[0].err[0].act', says: 'Then chain' },
  {
    rule: 'cond is refused in an err chain inside a Then chain',
    body: withActions(then(req({}, { err: [cond()] }))),
    path: 'actions[0].exe.actions[0].err[0].act',
  },
  { rule: 'resp has no Then chain', body: withActions(resp({ actions: [] })), path: 'actions[0].exe.actions', says: 'no Then chain' },
  {
    rule: 'cond has no Then chain',
    body: withActions(then({ act: 'cond', exe: { response: [], actions: [] } })),
    path: 'actions[0].exe.actions[0].exe.actions',
  },
  { rule: 'an exe is a strict object', body: withActions({ act: 'acsg', exe: { group: 2, extra: 1 } }), path: 'actions[0].exe.extra', says: 'accepted keys' },
  { rule: 'a Then chain holds valid actions', body: withActions(then({ act: 'acsg', exe: { group: 0 } })), path: 'actions[0].exe.actions[0].exe.group' },

  // acsg, acsr
  { rule: 'acsg group below 1', body: withActions({ act: 'acsg', exe: { group: 0 } }), path: 'actions[0].exe.group' },
  { rule: 'acsg group above 99', body: withActions({ act: 'acsg', exe: { group: 100 } }), path: 'actions[0].exe.group' },
  { rule: 'acsg group is an integer', body: withActions({ act: 'acsg', exe: { group: 2.5 } }), path: 'actions[0].exe.group' },
  {
    rule: "acsg group text other than 'admin' or a reference",
    body: withActions({ act: 'acsg', exe: { group: 'superuser' } }),
    path: 'actions[0].exe.group',
    says: 'admin',
  },
  {
    rule: 'acsg group reference follows the grammar',
    body: withActions({ act: 'acsg', exe: { group: '${GROUP}' } }),
    path: 'actions[0].exe.group',
    says: 'Valid forms',
  },
  { rule: 'acsg group is required', body: withActions({ act: 'acsg', exe: {} }), path: 'actions[0].exe.group', says: 'required' },
  { rule: 'acsg user_id is a string', body: withActions({ act: 'acsg', exe: { group: 2, user_id: 5 } }), path: 'actions[0].exe.user_id' },
  { rule: 'acsr record_id is required', body: withActions({ act: 'acsr', exe: {} }), path: 'actions[0].exe.record_id', says: 'required' },
  {
    rule: 'acsr user_id is a string or a list of strings',
    body: withActions({ act: 'acsr', exe: { record_id: 'r', user_id: 5 } }),
    path: 'actions[0].exe.user_id',
  },

  // pstr
  {
    rule: 'pstr table as a bare string is refused in JSON registration',
    body: withActions(pstr({ table: 'orders' })),
    path: 'actions[0].exe.table',
    says: 'access_group',
  },
  {
    rule: 'pstr table object without access_group',
    body: withActions(pstr({ table: { name: 'orders' } })),
    path: 'actions[0].exe.table.access_group',
    says: 'required',
  },
  { rule: 'pstr table access_group 0..99', body: withActions(pstr({ table: { name: 't', access_group: 100 } })), path: 'actions[0].exe.table.access_group' },
  {
    rule: 'pstr table access_group named levels only',
    body: withActions(pstr({ table: { name: 't', access_group: 'everyone' } })),
    path: 'actions[0].exe.table.access_group',
  },
  { rule: 'pstr table needs a name', body: withActions(pstr({ table: { access_group: 'public' } })), path: 'actions[0].exe.table.name' },
  {
    rule: "pstr 'private' needs user_id",
    body: withActions(pstr({ table: { name: 't', access_group: 'private' } })),
    path: 'actions[0].exe.table.access_group',
    says: 'user_id',
  },
  { rule: 'pstr readonly needs user_id', body: withActions(pstr({ readonly: true })), path: 'actions[0].exe.readonly', says: 'user_id' },
  {
    rule: 'pstr subscription needs user_id',
    body: withActions(pstr({ table: { name: 't', access_group: 'public', subscription: { upload_to_feed: true } } })),
    path: 'actions[0].exe.table.subscription',
    says: 'user_id',
  },
  {
    rule: 'pstr subscription settings are booleans',
    body: withActions(pstr({ user_id: 'u', table: { name: 't', access_group: 'public', subscription: { upload_to_feed: 'yes' } } })),
    path: 'actions[0].exe.table.subscription.upload_to_feed',
  },
  ...['notification', 'remove_bin', 'reference_private_key', 'progress', 'service'].map((key) => ({
    rule: `pstr refuses the key ${key}`,
    body: withActions(pstr({ [key]: true })),
    path: `actions[0].exe.${key}`,
    says: 'accepted keys: table, data, index, tags, unique_id, record_id, reference, readonly, source, user_id, actions',
  })),
  {
    rule: 'pstr index value is a string, number or boolean',
    body: withActions(pstr({ index: { name: 'n', value: { x: 1 } } })),
    path: 'actions[0].exe.index.value',
  },
  { rule: 'pstr tags are strings', body: withActions(pstr({ tags: [1] })), path: 'actions[0].exe.tags[0]' },
  { rule: 'pstr reference is a string or null', body: withActions(pstr({ reference: 5 })), path: 'actions[0].exe.reference' },
  {
    rule: 'pstr source.referencing_limit is a number or null',
    body: withActions(pstr({ source: { referencing_limit: 'many' } })),
    path: 'actions[0].exe.source.referencing_limit',
  },
  {
    rule: 'pstr source restriction condition is an operator',
    body: withActions(pstr({ source: { referencing_index_restrictions: [{ name: 'n', condition: 'like' }] } })),
    path: 'actions[0].exe.source.referencing_index_restrictions[0].condition',
  },
  {
    rule: 'pstr strings are templates checked like any other',
    body: withActions(pstr({ data: { a: ['${id}'] } })),
    path: 'actions[0].exe.data.a[0]',
    says: 'Valid forms',
  },

  // req
  { rule: 'req url is required', body: withActions({ act: 'req', exe: {} }), path: 'actions[0].exe.url', says: 'required' },
  { rule: 'req url starts with http:// or https://', body: withActions(req({ url: 'ftp://files.example.com/x' })), path: 'actions[0].exe.url', says: 'http' },
  { rule: 'req url names a hostname', body: withActions(req({ url: 'https://' })), path: 'actions[0].exe.url' },
  { rule: 'req url without a scheme', body: withActions(req({ url: 'api.example.com/x' })), path: 'actions[0].exe.url' },
  { rule: 'req url that is one whole reference', body: withActions(req({ url: '${body[url]}' })), path: 'actions[0].exe.url', says: 'whole reference' },
  { rule: 'req url may not start with a reference', body: withActions(req({ url: '${body[scheme]}://x.example' })), path: 'actions[0].exe.url' },
  {
    rule: 'req url with secretName: host written out',
    body: withActions(req({ url: 'https://${placeholder[HOST]}/x', secretName: 'stripe' })),
    path: 'actions[0].exe.url',
    says: 'secretName',
  },
  {
    rule: 'req url with secretName: no reference right after the host',
    body: withActions(req({ url: 'https://api.example.com${body[p]}', secretName: 'stripe' })),
    path: 'actions[0].exe.url',
    says: 'secretName',
  },
  { rule: 'req method GET, POST, PUT or DELETE', body: withActions(req({ method: 'PATCH' })), path: 'actions[0].exe.method' },
  { rule: 'req method is literal', body: withActions(req({ method: '${body[method]}' })), path: 'actions[0].exe.method' },
  { rule: 'req secretName must exist', body: withActions(req({ secretName: 'nope' })), path: 'actions[0].exe.secretName', says: 'no Secret Key' },
  ...['Host', 'host', 'X-Svc-Ticket', 'x-svc-ticket'].map((name) => ({
    rule: `req header ${name} is set by the service`,
    body: withActions(req({ headers: { [name]: 'v' } })),
    path: 'actions[0].exe.headers',
    says: 'set by the service',
  })),
  ...['Bad:Name', 'Bad\nName', 'Bad\0Name', 'Ünicode', 'X Space'].map((name) => ({
    rule: `req header name ${JSON.stringify(name)} is refused`,
    body: withActions(req({ headers: { [name]: 'v' } })),
    path: 'actions[0].exe.headers[',
    says: 'header name',
  })),
  ...['a\nb', 'a\r\nb', 'a\0b', 'price €5'].map((value) => ({
    rule: `req header value ${JSON.stringify(value)} is refused`,
    body: withActions(req({ headers: { 'X-A': value } })),
    path: 'actions[0].exe.headers["X-A"]',
    says: 'Latin-1',
  })),
  { rule: 'req header values are strings', body: withActions(req({ headers: { 'X-A': 5 } })), path: 'actions[0].exe.headers["X-A"]' },
  { rule: 'req params is an object', body: withActions(req({ params: ['a'] })), path: 'actions[0].exe.params' },
  {
    rule: '${CLIENT_SECRET} without secretName',
    body: withActions(req({ headers: { Authorization: 'Bearer ${CLIENT_SECRET}' } })),
    path: 'actions[0].exe.headers.Authorization',
    says: 'secretName',
  },
  {
    rule: '${CLIENT_SECRET} in the url',
    body: withActions(req({ url: 'https://api.example.com/?k=${CLIENT_SECRET}', secretName: 'stripe' })),
    path: 'actions[0].exe.url',
    says: 'CLIENT_SECRET',
  },
  { rule: '${CLIENT_SECRET} outside a req', body: withActions(pstr({ data: { k: '${CLIENT_SECRET}' } })), path: 'actions[0].exe.data.k' },
  {
    rule: '${CLIENT_SECRET} in the Then chain of a req with secretName',
    body: withActions(req({ secretName: 'stripe', actions: [req({ data: '${CLIENT_SECRET}' })] })),
    path: 'actions[0].exe.actions[0].exe.data',
  },

  // mail, nlsd
  { rule: 'mail template must be stored', body: withActions(mail({ template: 'missing' })), path: 'actions[0].exe.template', says: 'missing' },
  { rule: 'mail template is literal', body: withActions(mail({ template: '${body[template]}' })), path: 'actions[0].exe.template', says: 'literal' },
  { rule: 'mail to is an address or a reference', body: withActions(mail({ to: 'nobody' })), path: 'actions[0].exe.to' },
  { rule: 'mail to is checked as the run checks it: a domain without a dot is refused', body: withActions(mail({ to: 'x@y' })), path: 'actions[0].exe.to' },
  { rule: 'mail to references follow the grammar', body: withActions(mail({ to: '${email}' })), path: 'actions[0].exe.to', says: 'Valid forms' },
  {
    rule: 'mail placeholders: at most 30',
    body: withActions(mail({ placeholders: Object.fromEntries(repeat(31, (i) => [`p${i}`, i])) })),
    path: 'actions[0].exe.placeholders',
    says: '30',
  },
  {
    rule: 'mail placeholder values are strings, numbers or booleans',
    body: withActions(mail({ placeholders: { a: { b: 1 } } })),
    path: 'actions[0].exe.placeholders.a',
  },
  { rule: 'nlsd numeric group below 2', body: withActions(nlsd({ group: 1 })), path: 'actions[0].exe.group' },
  { rule: 'nlsd numeric group above 99', body: withActions(nlsd({ group: 100 })), path: 'actions[0].exe.group' },
  { rule: 'nlsd group is literal', body: withActions(nlsd({ group: '${body[group]}' })), path: 'actions[0].exe.group', says: 'literal' },
  {
    rule: 'nlsd newsletter must be stored under the group',
    body: withActions(nlsd({ group: 'authorized' })),
    path: 'actions[0].exe.newsletter',
    says: 'authorized',
  },
  { rule: 'nlsd newsletter is literal', body: withActions(nlsd({ newsletter: '${placeholder[N]}' })), path: 'actions[0].exe.newsletter', says: 'literal' },

  // resp
  { rule: 'resp status below 100', body: withActions(resp({ status: 99 })), path: 'actions[0].exe.status' },
  { rule: 'resp status above 599', body: withActions(resp({ status: 600 })), path: 'actions[0].exe.status' },
  { rule: 'resp status text that is not a reference', body: withActions(resp({ status: '200' })), path: 'actions[0].exe.status', says: 'reference' },
  {
    rule: "resp body with a top-level 'stage' key",
    body: withActions(resp({ body: { stage: 'x', ok: 1 } })),
    path: 'actions[0].exe.body.stage',
    says: 'stage',
  },
  ...['5s', '01m', '0h', 'later', '-1m', '1.5h'].map((resume) => ({
    rule: `resp resume ${resume} is refused`,
    body: withActions(resp({ resume })),
    path: 'actions[0].exe.resume',
  })),
  { rule: 'resp resume: a literal time in the past', body: withActions(resp({ resume: NOW - 1 })), path: 'actions[0].exe.resume', says: 'future' },
  { rule: 'resp body strings are templates', body: withActions(resp({ body: { a: '${ip[x]}' } })), path: 'actions[0].exe.body.a', says: 'Valid forms' },

  // cond
  {
    rule: 'cond value may not read the request',
    body: withActions(then(cond({ key: 'a', operator: '=', value: '${body[x]}' }))),
    path: 'actions[0].exe.actions[0].exe.response[0].value',
    says: 'only',
  },
  {
    rule: 'cond value list members are checked too',
    body: withActions(then(cond({ key: 'a', operator: '=', value: ['ok', '${user[id]}'] }))),
    path: 'actions[0].exe.actions[0].exe.response[0].value[1]',
  },
  {
    rule: 'cond setValueWhenMatch may not read ${error}',
    body: withActions(req({}, { err: [then(cond({ key: 'a', operator: '=', value: 1, setValueWhenMatch: { x: '${error[code]}' } }))] })),
    path: 'actions[0].err[0].exe.actions[0].exe.response[0].setValueWhenMatch.x',
  },
  {
    rule: 'cond references follow the grammar',
    body: withActions(then(cond({ key: 'a', operator: '=', value: '${placeholder}' }))),
    path: 'actions[0].exe.actions[0].exe.response[0].value',
    says: 'Valid forms',
  },
  {
    rule: 'cond row keys follow the path syntax',
    body: withActions(then(cond({ key: 'body[status', operator: '=', value: 1 }))),
    path: 'actions[0].exe.actions[0].exe.response[0].key',
  },
  {
    rule: 'cond response is a list of rows',
    body: withActions(then({ act: 'cond', exe: {} })),
    path: 'actions[0].exe.actions[0].exe.response',
    says: 'required',
  },

  // templating context
  { rule: '${response} outside a Then chain', body: withActions(req({ data: '${response[body]}' })), path: 'actions[0].exe.data', says: 'Then chain' },
  {
    rule: '${response} in the err chain of the answering action (not its Then chain)',
    body: withActions(req({}, { err: [resp({ body: '${response}' })] })),
    path: 'actions[0].err[0].exe.body',
    says: 'Then chain',
  },
  { rule: '${error} outside an err chain', body: withActions(resp({ body: '${error[code]}' })), path: 'actions[0].exe.body', says: 'err chain' },
  {
    rule: '${error} in a Then chain outside any err chain',
    body: withActions(then(resp({ body: '${error}' }))),
    path: 'actions[0].exe.actions[0].exe.body',
    says: 'err chain',
  },
  { rule: '${result} is removed', body: withActions(then(resp({ body: '${result}' }))), path: 'actions[0].exe.actions[0].exe.body', says: 'use ${response}' },
  {
    rule: 'an invalid form lists the valid forms',
    body: withActions(req({ url: 'https://a.example/${[ip]}' })),
    path: 'actions[0].exe.url',
    says: VALID_REFERENCE_FORMS,
  },
  {
    rule: 'req header values are templates',
    body: withActions(req({ headers: { 'X-A': '${placeholder}' } })),
    path: 'actions[0].exe.headers["X-A"]',
    says: 'Valid forms',
  },
  { rule: 'req params at any depth are templates', body: withActions(req({ params: { a: { b: ['${id}'] } } })), path: 'actions[0].exe.params.a.b[0]' },
  {
    rule: 'acsr user_id list members are templates',
    body: withActions({ act: 'acsr', exe: { record_id: 'r', user_id: ['${user[id]}', '${uid}'] } }),
    path: 'actions[0].exe.user_id[1]',
  },
];

describe('ticket registration accepts', () => {
  it.each(accepted)('$rule', async ({ body, id, stored }) => {
    const validated = await register(body, id);
    expect(validated.ticket.rules_version).toBe(2);
    stored?.(validated);
  });
});

describe('ticket registration refuses with INVALID_PARAMETER naming the field', () => {
  it.each(refused)('$rule', async ({ body, id, path, says }) => {
    const { code, message, field } = await refusal(check(body, id));
    expect(code).toBe('INVALID_PARAMETER');
    expect(message.startsWith(field), `${field} heads ${message}`).toBe(true);
    if (path) expect(message.startsWith(path), message).toBe(true);
    if (says) expect(message).toContain(says);
  });
});

describe('validateTicketId', () => {
  it('accepts an id of the pattern and refuses a reserved one', () => {
    expect(() => validateTicketId('abc')).not.toThrow();
    expect(() => validateTicketId('#abc')).toThrow(/ticket_id: the characters #, ! and \/ are reserved/);
  });
});

describe('lookups run only for a well-formed ticket', () => {
  it('a malformed ticket is refused before any secret, template or newsletter is looked up', async () => {
    const asked: string[] = [];
    const counting: RegistrationLookups = {
      secretExists: async (name) => (asked.push(name), true),
      templateExists: async (id) => (asked.push(id), true),
      newsletterExists: async (group, id) => (asked.push(id), true),
    };
    const body = withActions(req({ secretName: 'stripe' }), mail(), resp({ status: 1 }));
    expect(await refusal(validateTicketRegistration(TICKET_ID, body, counting, NOW))).toMatchObject({ field: 'actions[2].exe.status' });
    expect(asked).toEqual([]);
  });
  it('a well-formed ticket looks up every name it uses', async () => {
    const asked: string[] = [];
    const counting: RegistrationLookups = {
      secretExists: async (name) => (asked.push(`secret:${name}`), true),
      templateExists: async (id) => (asked.push(`template:${id}`), true),
      newsletterExists: async (group, id) => (asked.push(`newsletter:${group}/${id}`), true),
    };
    const body = ticket({
      condition: { signature: { secretName: 'a', header: 'X-Sig' } },
      actions: [req({ secretName: 'b', actions: [mail({ template: 't' })] }), nlsd({ group: 7, newsletter: 'n' })],
    });
    expect(await validateTicketRegistration(TICKET_ID, body, counting, NOW)).toMatchObject({ ok: true });
    expect(asked.sort()).toEqual(['newsletter:7/n', 'secret:a', 'secret:b', 'template:t']);
  });
});

describe('the registration schema documents the input', () => {
  it('converts to JSON Schema (for OpenAPI) without throwing', () => {
    const schema = z.toJSONSchema(ticketRegistrationSchema, { io: 'input' }) as { properties: Record<string, unknown> };
    expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(['description', 'count', 'condition', 'actions']));
    expect(() => z.toJSONSchema(ticketRegistrationSchema)).not.toThrow();
  });
});
