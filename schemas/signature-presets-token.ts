/**
 * Token presets: providers that send a shared token (or basic-auth credentials) in a header instead
 * of a signature. The condition compares the header with `=` (a headers row), so the token sits in
 * the ticket's condition, readable by the owner in the ticket listing. Also presets that carry only a
 * handshake. Listed through SIGNATURE_PRESETS (signature-presets.ts).
 */
import type { SignaturePreset } from './signature-presets';

export const TOKEN_PRESETS: readonly SignaturePreset[] = [
  {
    id: 'gitlab',
    name: 'GitLab (secret token)',
    docs: 'https://docs.gitlab.com/user/project/integrations/webhooks/#validate-payloads-by-using-a-secret-token',
    secret: "the webhook's secret token, compared as written with X-Gitlab-Token",
    token: { header: 'X-Gitlab-Token', note: 'GitLab sends the secret token itself in X-Gitlab-Token.' },
  },
  {
    id: 'postmark',
    name: 'Postmark (basic auth)',
    docs: 'https://postmarkapp.com/developer/webhooks/webhooks-overview#protecting-your-webhook',
    secret: "'Basic ' + base64 of user:password, the credentials written in the webhook URL (https://user:password@…)",
    token: { header: 'Authorization', note: 'Postmark sends the URL credentials as HTTP basic auth; a custom header set in Postmark works the same with its own name.' },
  },
  {
    id: 'msgraph',
    name: 'Microsoft Graph change notifications (validation only)',
    docs: 'https://learn.microsoft.com/graph/change-notifications-delivery-webhooks#notificationurl-validation',
    secret: 'nothing: Graph does not sign; compare clientState with a body row (value[0][clientState])',
    handshake: 'msgraph',
  },
];
