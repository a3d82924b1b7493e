/** Owner routes of mail: templates, newsletters, subscribers, the local outbox, newsletter sends. */
import { expect } from 'vitest';
import { bodyShapeCases, described, missingFieldCases, wrongValueCases } from '../bodies';
import { invalidParameter, type BadInputCase, type Target } from '../case';
import { OWNER_ROUTE_CREDENTIALS, credentialCases } from '../credentials';
import { ignoredQueryKeysCase, lookalikeCases, pagingCases } from '../params';
import { cyrillic, fullwidth, rtl } from '../payloads';
import { NEWSLETTER, SUBSCRIBER, TEMPLATE } from '../world';
import { PLATFORM_BODY } from './platform-body';
import { resourceNameCases } from './secrets-and-users';

const P = '/v1/projects/{service_id}';
const notFound = { status: 404, code: 'NOT_FOUND' } as const;
const MAIL_BODY_LIMIT = 262_144;

const mailBase = { subject: 'Replaced', html: '<p>replaced</p>', text: 'replaced' };
const mailWrong = {
  subject: [1, '', described('x'.repeat(999), 'over 998 characters'), null, ['s']],
  html: [1, [], false, described('x'.repeat(MAIL_BODY_LIMIT + 1), `over ${MAIL_BODY_LIMIT} characters`)],
  text: [{}, 2, described('x'.repeat(MAIL_BODY_LIMIT + 1), `over ${MAIL_BODY_LIMIT} characters`)],
};

/** A stored mail body: every malformed body, wrong value and missing subject, aimed at an existing resource. */
const mailBodyCases = (target: Target): BadInputCase[] => [
  ...credentialCases(target, { json: mailBase }, OWNER_ROUTE_CREDENTIALS),
  ...bodyShapeCases(target, PLATFORM_BODY, mailBase, 'subject'),
  ...missingFieldCases(target, mailBase, ['subject'], true),
  ...wrongValueCases(target, mailBase, mailWrong, true),
];

// --- mail templates ---

const templates: Target = { route: `GET ${P}/mail-templates`, auth: 'owner' };
const template = (method: string): Target => ({ route: `${method} ${P}/mail-templates/{template_id}`, params: { template_id: TEMPLATE }, auth: 'owner' });

const templateCases = (): BadInputCase[] => [
  ...credentialCases(templates, undefined, OWNER_ROUTE_CREDENTIALS),
  ignoredQueryKeysCase(templates),
  ...credentialCases(template('GET'), undefined, OWNER_ROUTE_CREDENTIALS),
  ...resourceNameCases(template('GET'), 'template_id', TEMPLATE),
  ...mailBodyCases(template('PUT')),
  ...resourceNameCases(template('PUT'), 'template_id', TEMPLATE, { body: { json: mailBase } }),
  ...credentialCases(template('DELETE'), undefined, OWNER_ROUTE_CREDENTIALS),
  ...resourceNameCases(template('DELETE'), 'template_id', TEMPLATE),
  { ...template('DELETE'), input: 'the id of no template', params: { template_id: 'nothing-here' }, expect: notFound },
];

// --- newsletters and their groups ---

/** Group names a route refuses: 'public', 'authorized', 2..99 or a name; nothing that only looks like one. */
const BAD_GROUPS: Array<[string, string]> = [
  [fullwidth('public'), "'public' in fullwidth letters"],
  [cyrillic('public'), "'public' with a Cyrillic lookalike letter"],
  [rtl('public'), "'public' with a right-to-left override"],
  ['pub\u0000lic', "'public' with a NUL character"],
  ['1', 'the number 1'],
  ['100', 'the number 100'],
  ['07', 'the number 7 written 07'],
  [fullwidth('7'), 'the number 7 in a fullwidth digit'],
  ['g'.repeat(65), 'a name of 65 characters'],
];

const groupCases = (target: Target, extra: Partial<BadInputCase> = {}): BadInputCase[] =>
  BAD_GROUPS.map(([group, words]) => ({
    ...target,
    ...extra,
    input: `a group of ${words}`,
    params: { ...target.params, group },
    expect: invalidParameter('group', true),
  }));

const newsletters: Target = { route: `GET ${P}/newsletters`, auth: 'owner' };
const newsletter = (method: string): Target => ({
  route: `${method} ${P}/newsletters/{group}/{message_id}`,
  params: { group: 'public', message_id: NEWSLETTER },
  auth: 'owner',
});

const newsletterCases = (): BadInputCase[] => [
  ...credentialCases(newsletters, undefined, OWNER_ROUTE_CREDENTIALS),
  ...BAD_GROUPS.map(
    ([group, words]): BadInputCase => ({
      ...newsletters,
      input: `a group filter of ${words}`,
      query: `group=${encodeURIComponent(group)}`,
      expect: invalidParameter('group', true),
    }),
  ),
  ignoredQueryKeysCase(newsletters),
  ...credentialCases(newsletter('GET'), undefined, OWNER_ROUTE_CREDENTIALS),
  ...groupCases(newsletter('GET')),
  ...resourceNameCases(newsletter('GET'), 'message_id', NEWSLETTER),
  ...mailBodyCases(newsletter('PUT')),
  ...groupCases(newsletter('PUT'), { body: { json: mailBase } }),
  ...resourceNameCases(newsletter('PUT'), 'message_id', NEWSLETTER, { body: { json: mailBase } }),
  ...credentialCases(newsletter('DELETE'), undefined, OWNER_ROUTE_CREDENTIALS),
  ...groupCases(newsletter('DELETE')),
  ...resourceNameCases(newsletter('DELETE'), 'message_id', NEWSLETTER),
  { ...newsletter('DELETE'), input: 'the newsletter under another group', params: { group: 'authorized', message_id: NEWSLETTER }, expect: notFound },
];

// --- subscribers ---

const subscribers: Target = { route: `GET ${P}/subscribers/{group}`, params: { group: 'public' }, auth: 'owner' };
const subscriber = (method: string): Target => ({
  route: `${method} ${P}/subscribers/{group}/{email}`,
  params: { group: 'public', email: SUBSCRIBER },
  auth: 'owner',
});

/** Addresses that only look like the world's subscriber (upper case is the same address, so it is not here). */
const addressCases = (target: Target, extra: Partial<BadInputCase> = {}): BadInputCase[] => [
  ...lookalikeCases(target, 'email', 'the address of a subscriber', SUBSCRIBER, invalidParameter('email', true), extra),
  ...[
    ['reader', 'an address without @'],
    ['reader@example', 'an address without a dot in the domain'],
    [`${'r'.repeat(65)}@example.com`, 'an address whose local part is over 64 characters'],
    [`r@${'e'.repeat(250)}.com`, 'an address over 254 characters'],
    ['reader@exa mple.com', 'an address with a space'],
    [`reader@${cyrillic('example')}.com`, 'an address with a Cyrillic lookalike in the domain'],
  ].map(([email, input]): BadInputCase => ({ ...target, ...extra, input, params: { ...target.params, email }, expect: invalidParameter('email', true) })),
];

const subscriberCases = (): BadInputCase[] => [
  ...credentialCases(subscribers, undefined, OWNER_ROUTE_CREDENTIALS),
  ...groupCases(subscribers),
  ...pagingCases(subscribers),
  ignoredQueryKeysCase(subscribers, { list: [expect.objectContaining({ email: SUBSCRIBER })] }),

  ...credentialCases({ ...subscriber('PUT'), params: { group: 'public', email: 'new@example.com' } }, undefined, OWNER_ROUTE_CREDENTIALS),
  ...groupCases({ ...subscriber('PUT'), params: { group: 'public', email: 'new@example.com' } }),
  ...addressCases(subscriber('PUT')),
  ...bodyShapeCases({ ...subscriber('PUT'), params: { group: 'public', email: 'new@example.com' } }, { ...PLATFORM_BODY, emptyIsValid: true }, {}, 'user_id'),
  ...wrongValueCases(
    { ...subscriber('PUT'), params: { group: 'public', email: 'new@example.com' } },
    { user_id: null },
    {
      user_id: [
        'not-a-uuid',
        5,
        true,
        described(fullwidth('00000000-0000-4000-8000-000000000001'), 'as a uuid in fullwidth digits'),
        described('00000000-0000-4000-8000-000000000001', 'as the uuid of no user of the project'),
      ],
    },
    true,
  ),

  ...credentialCases(subscriber('DELETE'), undefined, OWNER_ROUTE_CREDENTIALS),
  ...groupCases(subscriber('DELETE')),
  ...addressCases(subscriber('DELETE')),
  { ...subscriber('DELETE'), input: 'the subscriber under another group', params: { group: 'authorized', email: SUBSCRIBER }, expect: notFound },
];

// --- delivery: the local outbox and newsletter sends ---

const outbox: Target = { route: `GET ${P}/mail-outbox`, auth: 'owner' };
const send: Target = { route: `GET ${P}/newsletter-sends/{send_id}`, params: { send_id: 'none' }, auth: 'owner' };

const deliveryCases = (): BadInputCase[] => [
  ...credentialCases(outbox, undefined, OWNER_ROUTE_CREDENTIALS),
  ...pagingCases(outbox),
  ignoredQueryKeysCase(outbox, { list: [], endOfList: true }),
  { ...outbox, input: "a 'to' filter of 10,000 characters", query: `to=${'t'.repeat(10_000)}`, expect: { status: 200, json: { list: [] } } },
  ...credentialCases(send, undefined, OWNER_ROUTE_CREDENTIALS),
  ...lookalikeCases(send, 'send_id', 'a send id', 'send0001', notFound),
  { ...send, input: 'a send id of 10,000 characters', params: { send_id: 's'.repeat(10_000) }, expect: notFound },
];

/** The valid requests the cases above each break in one way (controls.test.ts checks they are accepted). */
export const mailControls = (): BadInputCase[] => [
  { ...template('PUT'), input: 'a valid template', body: { json: mailBase }, expect: { status: 200 } },
  { ...template('GET'), input: 'the template', expect: { status: 200 } },
  { ...templates, input: 'the templates', expect: { status: 200 } },
  { ...newsletter('PUT'), input: 'a valid newsletter', body: { json: mailBase }, expect: { status: 200 } },
  { ...newsletter('GET'), input: 'the newsletter', expect: { status: 200 } },
  { ...newsletters, input: 'the newsletters of a group', query: 'group=public', expect: { status: 200 } },
  {
    ...subscriber('PUT'),
    params: { group: 'public', email: 'new@example.com' },
    input: 'a valid subscriber',
    body: { json: { user_id: null } },
    expect: { status: 200 },
  },
  { ...subscribers, input: 'a page of subscribers', query: 'limit=5', expect: { status: 200 } },
  { ...outbox, input: 'a page of the outbox', query: 'limit=5', expect: { status: 200 } },
  { ...subscriber('DELETE'), input: 'the subscriber', expect: { status: 200 } },
  { ...newsletter('DELETE'), input: 'the newsletter', expect: { status: 200 } },
  { ...template('DELETE'), input: 'the template', expect: { status: 200 } },
];

export const mailCases = (): BadInputCase[] => [...templateCases(), ...newsletterCases(), ...subscriberCases(), ...deliveryCases()];
