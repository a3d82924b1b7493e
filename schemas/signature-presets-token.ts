/**
 * Token presets: providers that send a shared token (or basic-auth credentials) in a header instead
 * of a signature. The header is compared with a Secret Key in constant time (the `token` algorithm,
 * an extension of spec 2.2.1: docs/signature-extensions.md "Tokens"), so the token is never written
 * into the ticket's condition, and a wrong or missing one fails as a signature does
 * (CONDITION_FAILED `{ field: 'signature' }`). Also presets that carry only a handshake. Listed
 * through SIGNATURE_PRESETS (signature-presets.ts).
 *
 * Neither provider's npm library checks a delivery (@gitbeaker/* calls GitLab's API; `postmark`
 * sends mail): the tests use the header format each documents.
 */
import type { SignaturePreset } from './signature-presets';

export const TOKEN_PRESETS: readonly SignaturePreset[] = [
  {
    id: 'gitlab',
    name: 'GitLab (secret token)',
    docs: 'https://docs.gitlab.com/user/project/integrations/webhooks/#validate-payloads-by-using-a-secret-token',
    secret: "the webhook's secret token, as written in GitLab (compared with X-Gitlab-Token)",
    signature: { header: 'X-Gitlab-Token', algorithm: 'token', encoding: 'raw', parts: ['${signature}'], signed: '${body}', secret_encoding: 'raw' },
    note: 'GitLab sends the secret token itself in X-Gitlab-Token; it is compared with the Secret Key in constant time.',
  },
  {
    id: 'postmark',
    name: 'Postmark (basic auth)',
    docs: 'https://postmarkapp.com/developer/webhooks/webhooks-overview#protecting-your-webhook',
    secret: 'user:password, the credentials written in the webhook URL (https://user:password@…), which Postmark sends as Authorization: Basic',
    signature: { header: 'Authorization', algorithm: 'token', encoding: 'base64', parts: ['Basic ${signature}'], signed: '${body}', secret_encoding: 'raw' },
    note: 'For a custom header set in Postmark instead, write the signature by hand: that header, algorithm token, encoding raw, the Secret Key holding its value.',
  },
  {
    id: 'msgraph',
    name: 'Microsoft Graph change notifications (validation only)',
    docs: 'https://learn.microsoft.com/graph/change-notifications-delivery-webhooks#notificationurl-validation',
    secret: 'nothing: Graph does not sign; compare clientState with a body row (value[0][clientState])',
    handshake: 'msgraph',
  },
];
