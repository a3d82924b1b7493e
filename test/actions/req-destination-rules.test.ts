/**
 * The Destinations matcher (src/outbound/destinations.ts) through registered tickets and the real Worker:
 * a req whose Secret Key has Destinations goes only where they admit, judged on its url as the templates
 * filled it, and a refused call never reaches the loopback server (it counts what it receives by path).
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { DESTINATION_CASES, type DestinationCase } from '../../src/outbound/destination-cases';
import { destinationTextProblem } from '../../src/outbound/destinations';
import { call, createProject, putSecret, registerTicket, type TestProject } from '../helpers/api';
import { consumePost } from './run-support';

const origin = inject('loopbackOrigin');
const SECRET = 'sk_dest_5f4e3d2c1b0a';
let project: TestProject;
/** A path of this file's own under /echo, so the loopback server's counts are not shared with other tests. */
let base: string;

beforeAll(async () => {
  project = await createProject();
  base = `/echo/dest-${crypto.randomUUID()}`;
  await putSecret(project, 'v1-only', SECRET, { destinations: [`${origin}${base}/v1`] });
  await putSecret(project, 'anywhere', SECRET);
});

/** How many requests the loopback server received for this path. */
async function received(path: string): Promise<number> {
  const res = await fetch(`${origin}/received?path=${encodeURIComponent(path)}`);
  return ((await res.json()) as { count: number }).count;
}

let ticketCount = 0;
/** Registers a ticket whose one req calls url with the key in a header; answers its id. */
async function reqTicket(url: string, secretName: string): Promise<string> {
  const ticketId = `dest-${++ticketCount}`;
  await registerTicket(project, ticketId, {
    actions: [{ act: 'req', exe: { url, secretName, headers: { authorization: 'Bearer ${CLIENT_SECRET}' } } }],
  });
  return ticketId;
}

const refusedBy = (refusal: string, secretName: string) => ({
  code: 'ACTION_FORBIDDEN',
  message: 'Destination is not allowed for this client secret.',
  detail: { reason: 'destination_not_allowed', refusal, secretName },
});

describe('req under a key whose destination is <loopback>/v1', () => {
  it('admits /v1/x: the call arrives once', async () => {
    const res = await consumePost(project, await reqTicket(`${origin}${base}/v1/x`, 'v1-only'));
    expect(res.status).toBe(200);
    expect(await received(`${base}/v1/x`)).toBe(1);
  });

  it('refuses /v10 (a prefix not at a / boundary) and nothing arrives', async () => {
    const res = await consumePost(project, await reqTicket(`${origin}${base}/v10`, 'v1-only'));
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject(refusedBy('not_listed', 'v1-only'));
    expect(await received(`${base}/v10`)).toBe(0);
  });

  it('refuses /v1/../x, its encoded and backslash spellings, and nothing arrives at /x', async () => {
    const spellings: [string, string][] = [
      [`${base}/v1/../x`, 'dot_segment'],
      [`${base}/v1/%2e%2E/x`, 'dot_segment'],
      [`${base}/v1/.%2e/x`, 'dot_segment'],
      [`${base}/v1\\..\\x`, 'backslash'],
    ];
    for (const [path, refusal] of spellings) {
      const res = await consumePost(project, await reqTicket(`${origin}${path}`, 'v1-only'));
      expect(res.json, path).toMatchObject(refusedBy(refusal, 'v1-only'));
    }
    expect(await received(`${base}/x`)).toBe(0);
  });

  it('judges the url after its templates are filled: a .. segment from the request body is refused', async () => {
    const ticketId = await reqTicket(`${origin}${base}/v1/\${body[segment]}/y`, 'v1-only');
    const refused = await consumePost(project, ticketId, { segment: '..' });
    expect(refused.json).toMatchObject(refusedBy('dot_segment', 'v1-only'));
    expect(await received(`${base}/y`)).toBe(0);

    expect((await consumePost(project, ticketId, { segment: 'ok' })).status).toBe(200);
    expect(await received(`${base}/v1/ok/y`)).toBe(1);
  });

  it('a key without Destinations sends the same url: the refusals above come from the Destinations', async () => {
    const res = await consumePost(project, await reqTicket(`${origin}${base}/v1/../z`, 'anywhere'));
    expect(res.status).toBe(200);
    expect(await received(`${base}/z`)).toBe(1);
  });
});

/**
 * Registration refuses a url that does not start with http(s):// and a host written out, that does not
 * parse, or that holds a reference (with secretName, none may stand before the path).
 */
const registrationRefuses = (url: string) => !/^https?:\/\//i.test(url) || url.includes('${') || !URL.canParse(url);
/** A user name or password is refused as an invalid url before any Destination is read, as without a key. */
const carriesCredentials = (url: string) => URL.canParse(url) && (new URL(url).username !== '' || new URL(url).password !== '');

/** The table's refused rows whose Destinations an owner can store; the allowed rows would reach real hosts. */
const refusedRows = DESTINATION_CASES.filter(
  (row) => row.verdict !== 'allowed' && row.destinations.length > 0 && row.destinations.every((text) => destinationTextProblem(text) === undefined),
);

describe('req and the Destinations matcher table (src/outbound/destination-cases.ts)', () => {
  it("every refused row is refused before anything is sent: at registration, as an invalid url, or by the Destinations for the row's reason", async () => {
    expect(refusedRows.length).toBeGreaterThan(50);
    const outcomes: [DestinationCase, unknown][] = [];
    for (const [index, row] of refusedRows.entries()) {
      const secretName = `table-${index}`;
      await putSecret(project, secretName, SECRET, { destinations: row.destinations });
      const ticketId = `table-${index}`;
      const registered = await call('PUT', `/v1/projects/${project.service_id}/tickets/${ticketId}`, {
        token: project.owner_key,
        body: { actions: [{ act: 'req', exe: { url: row.url, secretName } }] },
      });
      if (registrationRefuses(row.url)) {
        outcomes.push([
          row,
          { status: registered.status, code: registered.json.code, namesUrl: String(registered.json.message).startsWith('actions[0].exe.url: ') },
        ]);
        continue;
      }
      const res = await consumePost(project, ticketId);
      outcomes.push([row, { status: res.status, code: res.json.code, reason: res.json.detail?.reason, refusal: res.json.detail?.refusal }]);
    }
    for (const [row, outcome] of outcomes) {
      const expected = registrationRefuses(row.url)
        ? { status: 400, code: 'INVALID_PARAMETER', namesUrl: true }
        : carriesCredentials(row.url)
          ? { status: 400, code: 'REQUEST_FAILED', reason: 'invalid_url', refusal: undefined }
          : { status: 400, code: 'ACTION_FORBIDDEN', reason: 'destination_not_allowed', refusal: row.verdict };
      expect(outcome, `${row.rule}: ${row.url}`).toEqual(expected);
    }
  }, 120_000);
});
