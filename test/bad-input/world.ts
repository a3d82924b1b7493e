/**
 * The projects, users and resources every bad-input case runs against, built once per test file
 * through the real Worker. Each case must leave all of it as it found it.
 */
import { call, createProject, mintUser, putSecret, registerTicket, type TestProject } from '../helpers/api';

export interface World {
  project: TestProject;
  /** Another project: its owner key and users must not work on `project`. */
  other: TestProject;
  user: { user_id: string; id_token: string };
  admin: { user_id: string; id_token: string };
  otherUser: { user_id: string; id_token: string };
}

/** Names of the resources the world holds. */
export const SECRET = 'stripe';
export const TEMPLATE = 'welcome';
export const NEWSLETTER = 'launch';
export const SUBSCRIBER = 'reader@example.com';
/** Tickets, each with 5 consumptions left. */
export const TICKETS = {
  /** No condition: every consumption that reaches it succeeds. */
  plain: 'plain',
  /** POST only; header x-token must be 'letmein' and body.order 'A1'. */
  guarded: 'guarded',
  /** params.order must be 'A1'. */
  lookup: 'lookup',
  /** Like guarded's body row, with return200. */
  quiet: 'quiet',
} as const;
/** An id no ticket has: registration cases aim at it and it must still not exist afterwards. */
export const FRESH_TICKET = 'fresh';
export const WATCHED_TICKETS = [...Object.values(TICKETS), FRESH_TICKET];

async function must(res: Promise<{ status: number; text: string }>, what: string): Promise<void> {
  const { status, text } = await res;
  if (status >= 300) throw new Error(`${what} failed: ${status} ${text}`);
}

export async function buildWorld(): Promise<World> {
  const [project, other] = await Promise.all([createProject({ name: 'bad-input' }), createProject({ name: 'other' })]);
  const sid = project.service_id;
  const owner = { token: project.owner_key };
  const [user, admin, otherUser] = await Promise.all([
    mintUser(project, { email: 'user@example.com' }),
    mintUser(project, { access_group: 99 }),
    mintUser(other),
  ]);
  await Promise.all([
    putSecret(project, SECRET, 'whsec_test'),
    must(call('PUT', `/v1/projects/${sid}/mail-templates/${TEMPLATE}`, { ...owner, body: { subject: 'Hi' } }), 'template'),
    must(call('PUT', `/v1/projects/${sid}/newsletters/public/${NEWSLETTER}`, { ...owner, body: { subject: 'Launch' } }), 'newsletter'),
    must(call('PUT', `/v1/projects/${sid}/subscribers/public/${SUBSCRIBER}`, owner), 'subscriber'),
    registerTicket(project, TICKETS.plain, { count: 5, actions: [] }),
    registerTicket(project, TICKETS.guarded, {
      count: 5,
      condition: {
        method: 'POST',
        headers: [{ key: 'x-token', operator: '=', value: 'letmein' }],
        body: [{ key: 'order', operator: '=', value: 'A1' }],
      },
      actions: [],
    }),
    registerTicket(project, TICKETS.lookup, { count: 5, condition: { params: [{ key: 'order', operator: '=', value: 'A1' }] }, actions: [] }),
    registerTicket(project, TICKETS.quiet, { count: 5, condition: { return200: true, body: [{ key: 'order', operator: '=', value: 'A1' }] }, actions: [] }),
  ]);
  return { project, other, user, admin, otherUser };
}
