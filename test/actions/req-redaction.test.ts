/**
 * The secret never comes back in the encodings the service itself produces: a req sends ${CLIENT_SECRET} in
 * form-encoded data and in params (URLSearchParams: space as '+', UTF-8 percent-encoded), the loopback
 * /echo answers what it received inside JSON, and neither the consume answer, nor the error body, nor the
 * log (consumption and action rows) may hold the value in any of those forms.
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { createProject, putSecret, registerTicket, type TestProject } from '../helpers/api';
import { getTickets } from '../logs/log-helpers';
import { consumePost, settle } from './run-support';

const origin = inject('loopbackOrigin');
// Space, '+', '&', '=', '%', characters URLSearchParams encodes and encodeURIComponent keeps (!'()~), non-ASCII.
const SECRET = "sk live+1&v=50% (ok)!~'é€😀";
let project: TestProject;

beforeAll(async () => {
  project = await createProject();
  await putSecret(project, 'echoed', SECRET);
});

const formEncoded = (value: string) => new URLSearchParams({ k: value }).toString().slice(2);

/** The secret as written and in each encoding the service applies to it on the way out. */
const COPIES = [SECRET, formEncoded(SECRET), encodeURIComponent(SECRET), JSON.stringify(SECRET).slice(1, -1), formEncoded(JSON.stringify(SECRET))];

function expectNoCopy(text: string, where: string): void {
  for (const copy of COPIES) expect(text.includes(copy), `${where} holds ${copy}`).toBe(false);
}

/** A req to `path` that sends the secret in form data (alone, between words, in a nested value) and in params. */
function echoTicket(path: string, extra: Record<string, unknown> = {}) {
  return {
    actions: [
      {
        act: 'req',
        exe: {
          url: `${origin}${path}`,
          method: 'POST',
          secretName: 'echoed',
          data: { token: '${CLIENT_SECRET}', note: 'x ${CLIENT_SECRET} y', nested: { k: '${CLIENT_SECRET}' } },
          params: { key: '${CLIENT_SECRET}' },
          ...extra,
        },
      },
    ],
  };
}

/**
 * The log of the ticket's one consumption from the owner's listings, once exported: its req action row, and
 * the text of both listings (the consumption row and its action rows).
 */
async function loggedConsumption(ticketId: string): Promise<{ req: any; text: string }> {
  await settle(project, ticketId);
  const logs = await getTickets(project, { ticket_id: `#${ticketId}#` });
  const [log] = logs.json.list;
  const actions = await getTickets(project, { ticket_id: `@${ticketId}#${log.consume_id}#` });
  expect(actions.status).toBe(200);
  return { req: actions.json.list.find((row: { act: string }) => row.act === 'req'), text: logs.text + actions.text };
}

const REDACTED_FORM = 'token=${CLIENT_SECRET}&note=x+${CLIENT_SECRET}+y&nested=%7B%22k%22%3A%22${CLIENT_SECRET}%22%7D';

describe('req: the secret in the encodings the service produces is redacted', () => {
  it('the answer and the log show ${CLIENT_SECRET} where /echo returned the form-encoded data and params', async () => {
    await registerTicket(project, 'req-form-echo', echoTicket('/echo', { actions: [{ act: 'resp', exe: { body: { echoed: '${response[body]}' } } }] }));
    const res = await consumePost(project, 'req-form-echo');
    expect(res.status).toBe(200);
    expect(res.json.echoed).toMatchObject({ body: REDACTED_FORM, query: '?key=${CLIENT_SECRET}' });
    expectNoCopy(res.text, 'the consume answer');

    const logged = await loggedConsumption('req-form-echo');
    expect(logged.req).toMatchObject({
      sent: { params: { key: '${CLIENT_SECRET}' } },
      received: { body: { body: REDACTED_FORM, query: '?key=${CLIENT_SECRET}' } },
    });
    expectNoCopy(logged.text, 'the log');
  });

  it('the error body of an answer of 300 or more and the log show ${CLIENT_SECRET}', async () => {
    await registerTicket(project, 'req-form-echo-500', echoTicket('/echo-status/500'));
    const res = await consumePost(project, 'req-form-echo-500');
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: 'REQUEST_FAILED', detail: { status: 500, body: { body: REDACTED_FORM, query: '?key=${CLIENT_SECRET}' } } });
    expectNoCopy(res.text, 'the error body');

    const logged = await loggedConsumption('req-form-echo-500');
    expect(logged.req).toMatchObject({ received: { status: 500, body: { body: REDACTED_FORM } }, error: { code: 'REQUEST_FAILED' } });
    expectNoCopy(logged.text, 'the log');
  });
});
