/**
 * The one runner of every bad-input table: sends each case through the real Worker, checks the
 * answer (never 500; the status, code, stage and the field named) and that the project holds exactly
 * what it held before (a consume case that reached its ticket may add one failed log row, nothing else).
 */
import { exports } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { OPERATOR_TOKEN } from '../helpers/api';
import { read } from '../platform/worker-api';
import type { BadInputCase, Credential, PathParam } from './case';
import { ROUTE_LABELS } from './routes';
import { newLogRows, snapshot, withoutLog, type Snapshot } from './state';
import { WATCHED_TICKETS, buildWorld, type World } from './world';

const BASE = 'https://svc.test';

/** The Authorization header a credential kind sends. */
function authorization(world: World, credential: Credential): string | undefined {
  switch (credential) {
    case 'none':
      return undefined;
    case 'owner':
      return `Bearer ${world.project.owner_key}`;
    case 'operator':
      return `Bearer ${OPERATOR_TOKEN}`;
    case 'user':
      return `Bearer ${world.user.id_token}`;
    case 'admin':
      return `Bearer ${world.admin.id_token}`;
    case 'empty-bearer':
      return 'Bearer ';
    case 'wrong-owner-key':
      return `Bearer ok_${'0'.repeat(43)}`;
    case 'other-owner':
      return `Bearer ${world.other.owner_key}`;
    case 'other-user':
      return `Bearer ${world.otherUser.id_token}`;
    case 'malformed':
      return 'Bearer not-a-token';
    case 'control-chars':
      return 'Bearer \u0001tok\u007fen';
  }
}

/** The request path: the route template filled with percent-encoded parameters. */
function pathOf(world: World, c: BadInputCase): string {
  const template = c.route.slice(c.route.indexOf(' ') + 1);
  const params: Record<string, PathParam> = { service_id: world.project.service_id, owner_id: world.project.owner_id, ...c.params };
  const path = template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const param = params[name];
    if (param === undefined) throw new Error(`${c.route}: no value for {${name}}`);
    if (typeof param === 'object') return param.raw;
    return encodeURIComponent(typeof param === 'function' ? param(world) : param);
  });
  return c.query === undefined ? path : `${path}?${c.query}`;
}

/** Sends one case's request to the Worker and reads the answer. */
export async function send(world: World, c: BadInputCase): Promise<{ status: number; json: any; text: string }> {
  const headers: Record<string, string> = { 'cf-connecting-ip': '203.0.113.7', 'user-agent': 'bad-input-suite', ...c.headers };
  const auth = authorization(world, c.auth);
  if (auth !== undefined) headers.authorization = auth;
  let body: string | undefined;
  if (c.body !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = typeof c.body === 'string' ? c.body : JSON.stringify(c.body.json);
  }
  const method = c.route.slice(0, c.route.indexOf(' '));
  return read(await exports.default.fetch(`${BASE}${pathOf(world, c)}`, { method, headers, body }));
}

const CONSUME_ROUTE = /^(GET|POST) \/(tp|tg|tpa|publ|auth)\//;

/** The test name: "PUT ticket: description over 500 characters is INVALID_PARAMETER and stores nothing". */
export function caseName(c: BadInputCase): string {
  const label = ROUTE_LABELS[c.route] ?? c.route;
  const answer = c.expect.code ?? `accepted (${c.expect.status})`;
  const trace = c.trace
    ? `logs one failed ${c.trace.logged.check ? 'dry run' : 'consumption'} and uses no count`
    : c.expect.code
      ? 'stores nothing'
      : 'changes nothing';
  return `${label}: ${c.input} is ${answer} and ${trace}`;
}

async function checkAnswer(c: BadInputCase, res: { status: number; json: any; text: string }): Promise<void> {
  const shown = res.text.length > 400 ? `${res.text.slice(0, 400)}…` : res.text;
  expect(res.status, `answer: ${shown}`).not.toBe(500);
  expect(res.status, `answer: ${shown}`).toBe(c.expect.status);
  expect(res.json, `answer is not JSON: ${shown}`).toBeDefined();
  if (c.expect.json) expect(res.json).toMatchObject(c.expect.json);
  if (c.expect.code === undefined) {
    expect(res.json?.code, `answer: ${shown}`).toBeUndefined();
    return;
  }
  expect(res.json.code, `answer: ${shown}`).toBe(c.expect.code);
  // Consume routes answer the flat error body of spec 2.7 (always a stage); other routes never carry one.
  expect(res.json.stage, `answer: ${shown}`).toBe(CONSUME_ROUTE.test(c.route) ? (c.expect.stage ?? 'ticket') : undefined);
  expect(typeof res.json.message).toBe('string');
  if (c.expect.field !== undefined) expect(res.json.message, 'the message names the field').toContain(c.expect.field);
  if (c.expect.detail !== undefined) expect(res.json.detail).toMatchObject(c.expect.detail);
  if (c.expect.fieldPrefix !== undefined) {
    expect(String(res.json.detail?.field)).toMatch(new RegExp(`^${c.expect.fieldPrefix.replace(/[[\].]/g, '\\$&')}`));
    expect(res.json.message, 'the message names the field').toContain(res.json.detail.field);
  }
  if (typeof c.expect.message === 'string') expect(res.json.message).toBe(c.expect.message);
  else if (c.expect.message) expect(res.json.message).toMatch(c.expect.message);
}

/**
 * Registers one test per case under `family`, all against one world built once. Nothing a case does
 * may change the world, so each case compares the state after it with the state after the previous
 * one (one snapshot per case); a case that fails still moves the reference on, so one stray write is
 * reported once, not by every case after it.
 */
export function runCases(family: string, cases: readonly BadInputCase[]): void {
  let world: World;
  let reference: Snapshot;
  beforeAll(async () => {
    world = await buildWorld();
    reference = await snapshot(world.project.service_id, WATCHED_TICKETS);
  });

  describe(family, () => {
    for (const c of cases) {
      it(caseName(c), async () => {
        const before = reference;
        let after: Snapshot | undefined;
        try {
          const res = await send(world, c);
          after = await snapshot(world.project.service_id, WATCHED_TICKETS);
          await checkAnswer(c, res);
          checkTrace(c, before, after);
        } finally {
          reference = after ?? (await snapshot(world.project.service_id, WATCHED_TICKETS));
        }
      });
    }
  });
}

/** Nothing stored; or, for a consumption that reached its ticket, exactly one failed log row and nothing else. */
function checkTrace(c: BadInputCase, before: Snapshot, after: Snapshot): void {
  if (!c.trace) {
    expect(after).toEqual(before);
    return;
  }
  const { ticket, code, check = false } = c.trace.logged;
  expect(withoutLog(after)).toEqual(withoutLog(before));
  expect(newLogRows(before, after)).toEqual([expect.objectContaining({ ticket_id: ticket, failed: 1, code, is_check: check ? 1 : 0 })]);
}
