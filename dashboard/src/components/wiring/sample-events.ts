/**
 * A sample event per signature preset, in the shape the provider sends (trimmed to the members owners
 * test with), for "Send a test". A preset without one here starts from a small JSON object.
 */
type Sample = (now: number) => Record<string, unknown>;

const seconds = (now: number) => Math.floor(now / 1000);

export const SAMPLE_EVENTS: Readonly<Record<string, Sample>> = {
  // https://docs.stripe.com/api/events/object
  stripe: (now) => ({
    id: 'evt_test_webhook',
    object: 'event',
    api_version: '2024-06-20',
    created: seconds(now),
    type: 'payment_intent.succeeded',
    livemode: false,
    data: { object: { id: 'pi_test_3PQx', object: 'payment_intent', amount: 2000, currency: 'usd', status: 'succeeded', receipt_email: 'jenny@example.com' } },
  }),
  // https://docs.github.com/webhooks/webhook-events-and-payloads#ping
  github: () => ({
    zen: 'Keep it logically awesome.',
    hook_id: 123456,
    hook: { type: 'Repository', id: 123456, active: true, events: ['push', 'pull_request'] },
    repository: { id: 1296269, full_name: 'octo-org/octo-repo' },
    sender: { login: 'octocat', id: 1 },
  }),
  // https://shopify.dev/docs/api/webhooks?reference=toml#list-of-topics-orders/create
  shopify: () => ({ id: 820982911946154508, email: 'jon@example.com', total_price: '403.00', currency: 'USD', financial_status: 'paid' }),
  // https://api.slack.com/events/app_mention
  slack: (now) => ({
    type: 'event_callback',
    team_id: 'T0001',
    event: { type: 'app_mention', user: 'U0001', text: '<@U0LAN0Z89> is it everything a river should be?', ts: `${seconds(now)}.000200` },
    event_id: 'Ev0001',
    event_time: seconds(now),
  }),
};
