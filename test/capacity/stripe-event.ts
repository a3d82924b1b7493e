/**
 * A realistic Stripe `payment_intent.succeeded` event (about 3 KB of JSON, shaped as Stripe's API version
 * 2024-06-20 sends it), signed the way Stripe signs a delivery, with the headers Stripe's webhook
 * sender sets.
 */
import Stripe from 'stripe';

const cryptoProvider = Stripe.createSubtleCryptoProvider();

const ID_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const stripeId = (prefix: string, n: number) => {
  let id = '';
  for (let i = 0; i < 24; i++) id += ID_CHARS[(n * 7919 + i * 104729) % ID_CHARS.length];
  return `${prefix}_${id}`;
};

/** The n-th event: every id differs, the size does not. */
export function stripeEvent(n: number): string {
  const created = 1_767_225_600 + n;
  const pi = stripeId('pi', n);
  const charge = stripeId('ch', n);
  const customer = stripeId('cus', n);
  const paymentMethod = stripeId('pm', n);
  return JSON.stringify({
    id: stripeId('evt', n),
    object: 'event',
    api_version: '2024-06-20',
    created,
    data: {
      object: {
        id: pi,
        object: 'payment_intent',
        amount: 4200 + (n % 100),
        amount_capturable: 0,
        amount_details: { tip: {} },
        amount_received: 4200 + (n % 100),
        application: null,
        application_fee_amount: null,
        automatic_payment_methods: { allow_redirects: 'always', enabled: true },
        canceled_at: null,
        cancellation_reason: null,
        capture_method: 'automatic_async',
        client_secret: `${pi}_secret_${stripeId('s', n).slice(2)}`,
        confirmation_method: 'automatic',
        created,
        currency: 'eur',
        customer,
        description: `Order #${100000 + n} — 2 items`,
        invoice: null,
        last_payment_error: null,
        latest_charge: charge,
        livemode: false,
        metadata: { order_id: String(100000 + n), cart_id: stripeId('cart', n), channel: 'web', locale: 'fr-FR' },
        next_action: null,
        on_behalf_of: null,
        payment_method: paymentMethod,
        payment_method_configuration_details: { id: stripeId('pmc', 1), parent: null },
        payment_method_options: {
          card: { installments: null, mandate_options: null, network: null, request_three_d_secure: 'automatic' },
          link: { persistent_token: null },
          paypal: { preferred_locale: null, reference: null },
        },
        payment_method_types: ['card', 'link', 'paypal'],
        processing: null,
        receipt_email: `customer${n}@example.com`,
        review: null,
        setup_future_usage: null,
        shipping: {
          address: { city: 'Lyon', country: 'FR', line1: '12 rue de la République', line2: 'Bâtiment B', postal_code: '69002', state: null },
          carrier: null,
          name: 'Camille Martin',
          phone: '+33 4 72 00 00 00',
          tracking_number: null,
        },
        source: null,
        statement_descriptor: null,
        statement_descriptor_suffix: 'ORDER',
        status: 'succeeded',
        transfer_data: null,
        transfer_group: null,
      },
      previous_attributes: null,
    },
    livemode: false,
    pending_webhooks: 2,
    request: { id: stripeId('req', n), idempotency_key: `${stripeId('ik', n)}-${stripeId('ik', n + 1)}` },
    type: 'payment_intent.succeeded',
    account: stripeId('acct', 1).slice(0, 21),
    context: null,
    billing_details: {
      address: { city: 'Lyon', country: 'FR', line1: '12 rue de la République', line2: 'Bâtiment B', postal_code: '69002', state: null },
      email: `customer${n}@example.com`,
      name: 'Camille Martin',
      phone: '+33 4 72 00 00 00',
    },
    card: {
      brand: 'visa',
      checks: { address_line1_check: 'pass', address_postal_code_check: 'pass', cvc_check: 'pass' },
      country: 'FR',
      exp_month: 12,
      exp_year: 2030,
      fingerprint: stripeId('fp', n).slice(3, 19),
      funding: 'credit',
      last4: '4242',
      networks: { available: ['visa', 'cartes_bancaires'], preferred: null },
      three_d_secure_usage: { supported: true },
      wallet: null,
    },
    outcome: {
      network_status: 'approved_by_network',
      reason: null,
      risk_level: 'normal',
      risk_score: 32,
      seller_message: 'Payment complete.',
      type: 'authorized',
    },
  });
}

/** The headers of Stripe's delivery of `payload`, signed with `secret` now. */
export async function stripeDelivery(payload: string, secret: string): Promise<Record<string, string>> {
  const signature = await Stripe.webhooks.generateTestHeaderStringAsync({ payload, secret, timestamp: Math.floor(Date.now() / 1000), cryptoProvider });
  return {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-cache',
    accept: '*/*; q=0.5, application/xml',
    'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
    'cf-connecting-ip': '54.187.174.169',
    'stripe-signature': signature,
  };
}
