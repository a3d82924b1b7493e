/** Realistic deliveries per provider (shapes from each provider's event documentation) and the secrets they are signed with. */

export interface ProviderDeliveries {
  /** Per preset id: the headers of its delivery signed at NOW_SECONDS (fresh) and an hour earlier (stale). */
  deliveries: Record<string, { fresh: Record<string, string>; stale: Record<string, string> }>;
  /** Square's verifier accepted the base64 HMAC-SHA256 headers (woocommerce, typeform; shopify too, which its own library also checks). */
  squareConfirmed: Record<string, boolean>;
  /** A Paddle header signed at the real time, and whether Paddle's own webhooks.isSignatureValid accepted it. */
  paddle: { header: string; nowMs: number; confirmed: boolean };
  /**
   * Per preset id, the provider's own library's verdict on its fresh delivery (accepted) and on the
   * same delivery with one body value changed (changedAccepted, which must be false).
   */
  providerLibraries: Record<string, { library: string; accepted: boolean; changedAccepted: boolean }>;
  /** What Zoom's own receiver (@zoom/rivet) answers to ZOOM_URL_VALIDATION signed with PROVIDER_SECRETS.zoom: its status and body. */
  zoomValidation: { status: number; answer: unknown };
  /** A Linear delivery made at the real time (nowMs), which Linear's own verifier judged. */
  linear: { body: string; signature: string; nowMs: number; accepted: boolean; changedAccepted: boolean };
}

const json = (value: unknown) => JSON.stringify(value);

/** Zoom's endpoint.url_validation handshake (Zoom docs, "Validate your webhook endpoint"). */
export const ZOOM_URL_VALIDATION = json({ payload: { plainToken: 'qgg8vlvZRS6UYooatFL8Aw' }, event_ts: 1654503849680, event: 'endpoint.url_validation' });

export const PROVIDER_BODIES: Record<string, string> = {
  stripe: json({
    id: 'evt_1NG8Du2eZvKYlo2CUI79vXWy',
    object: 'event',
    type: 'payment_intent.succeeded',
    data: { object: { id: 'pi_3NG8Dt', amount: 1200, currency: 'eur' } },
  }),
  github: json({ action: 'opened', number: 42, pull_request: { title: 'Größe ✓', user: { login: 'octocat' } }, repository: { full_name: 'octo/hello' } }),
  slack: json({
    token: 'Jhj5dZrVaK7ZwHHjRyZWjbDl',
    team_id: 'T061EG9RZ',
    type: 'event_callback',
    event: { type: 'app_mention', text: '<@U0LAN0Z89> is it everything a river should be?', ts: '1515449522.000016' },
  }),
  shopify: json({ id: 820982911946154500, email: 'jon@example.com', total_price: '199.00', line_items: [{ title: 'Café crème', quantity: 1 }] }),
  'standard-webhooks': json({ type: 'invoice.paid', timestamp: '2025-10-09T08:53:20Z', data: { id: 'inv_1', total: 1200 } }),
  svix: json({
    type: 'user.created',
    object: 'event',
    data: { id: 'user_29w83sxmDNGwOuEthce5gg56FcC', email_addresses: [{ email_address: 'example@example.org' }] },
  }),
  paddle: json({
    event_id: 'evt_01h8bzakzx3hm2fmen703n5q45',
    event_type: 'transaction.completed',
    occurred_at: '2025-10-09T08:53:20.000Z',
    data: { id: 'txn_01h8bz', status: 'completed' },
  }),
  linear: json({
    action: 'create',
    type: 'Issue',
    data: { id: '2174add1-f7c8-44e3-bbf3-2d60b5ea8bc9', title: 'Bug' },
    webhookTimestamp: 1760000000000,
    webhookId: '000042e3-d123-4980-b49f-8e140eef9329',
  }),
  zoom: json({ event: 'meeting.started', event_ts: 1760000000000, payload: { account_id: 'AAAAAABBBB', object: { id: '1234567890', topic: 'Weekly sync' } } }),
  intercom: json({
    type: 'notification_event',
    topic: 'conversation.user.created',
    id: 'notif_ccd8a4d0-f965-11e3-a367-c779cae3e1b3',
    data: { item: { type: 'conversation' } },
  }),
  typeform: json({
    event_id: '01G6M3XK9VPWQFBB5DSDNPCWHT',
    event_type: 'form_response',
    form_response: { form_id: 'lT4Z3j', answers: [{ type: 'text', text: 'Lorem ipsum' }] },
  }),
  calendly: json({
    event: 'invitee.created',
    created_at: '2025-10-09T08:53:20.000000Z',
    payload: { email: 'test@example.com', name: 'John Doe', status: 'active' },
  }),
  vercel: json({
    type: 'deployment.created',
    id: 'uev_1xDQKsyEHbvnPdtZ',
    createdAt: 1760000000000,
    payload: { deployment: { id: 'dpl_2', url: 'my-app.vercel.app' } },
  }),
  bitbucket: json({ push: { changes: [{ new: { type: 'branch', name: 'main' } }] }, repository: { full_name: 'team/repo' }, actor: { display_name: 'Ada' } }),
  jira: json({ timestamp: 1760000000000, webhookEvent: 'jira:issue_created', issue: { key: 'PROJ-1', fields: { summary: 'Résumé bug' } } }),
  'coinbase-commerce': json({
    id: 1,
    scheduled_for: '2025-10-09T08:53:20Z',
    event: { id: '24934862-d980-46cb-9402-43c81b0cdba6', type: 'charge:confirmed', data: { code: '66BEOV2A' } },
  }),
  woocommerce: json({ id: 727, status: 'processing', currency: 'USD', total: '29.35', billing: { first_name: 'John', last_name: 'Doe' } }),
  sentry: json({
    action: 'created',
    installation: { uuid: '7a485448-a9e2-4c85-8a3c-4f44175783c9' },
    data: { issue: { id: '1170820242', title: 'Error' } },
    actor: { type: 'application', name: 'sentry' },
  }),
  notion: json({
    id: '367cba44-b6f3-4c92-81e7-6a2e9659efd4',
    timestamp: '2025-10-09T08:53:20.000Z',
    type: 'page.content_updated',
    entity: { id: '153104cd-477e-809d-8dc4-ff2d96ae3090', type: 'page' },
  }),
  twitch: json({
    subscription: { id: 'f1c2a387-161a-49f9-a165-0f21d7a4e1c4', type: 'channel.follow', version: '2' },
    event: { user_login: 'cool_user', broadcaster_user_login: 'cooler_user' },
  }),
};

export const PROVIDER_SECRETS: Record<string, string> = {
  stripe: 'whsec_test_preset_secret',
  github: "It's a Secret to Everybody",
  slack: '8f742231b10e8888abcd99yyyzzz85a5',
  shopify: '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',
  'standard-webhooks': 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  svix: 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD',
  paddle: 'pdl_ntfset_01gkpjp8bkm3tm53kdgkx6sms7_6h3qd3uFSi9YCD3OLYAShQI90XTI5vEI',
  linear: 'lin_wh_8f3c2b1a0d9e8f7a6b5c4d3e2f1a0b9c',
  zoom: 'NbSl-uPgSEqW_eHMFUdewA',
  intercom: 'intercom-client-secret-5c4d3e2f',
  typeform: 'typeform-webhook-secret',
  calendly: 'calendly-signing-key-c0ffee',
  vercel: 'vercel-webhook-secret-1a2b3c',
  bitbucket: 'bitbucket-webhook-secret',
  jira: 'jira-webhook-secret',
  'coinbase-commerce': '3a3b4c5d-6e7f-8091-a2b3-c4d5e6f70812',
  woocommerce: 'woo-webhook-secret',
  sentry: 'sentry-client-secret-4e8f',
  notion: 'secret_tMrlL1qK5vuQAh1b6cZGhFChZTSYJlce98V0pYn7yBl',
  twitch: 'this-is-a-twitch-secret-10-100',
};
