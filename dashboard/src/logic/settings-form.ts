/** The Project page's settings form: what it sends, and which of its inputs a refusal's field names. */
import type { OwnerProject } from '../api';

export interface SettingsForm {
  name: string;
  useIdentity: boolean;
  issuer: string;
  audience: string;
  jwks_url: string;
  /** Write-only: blank leaves the stored key as it is. */
  key: string;
  /** One url a line. */
  destinations: string;
}

export const formOf = (p: OwnerProject): SettingsForm => ({
  name: p.name,
  useIdentity: p.identity !== null,
  issuer: p.identity?.issuer ?? '',
  audience: p.identity?.audience ?? '',
  jwks_url: p.identity?.jwks_url ?? '',
  key: '',
  destinations: p.secure_request_destinations.join('\n'),
});

/** The PATCH …/settings body: identity null when unused, the key only when one was typed. */
export function settingsBody(form: SettingsForm): Record<string, unknown> {
  return {
    name: form.name,
    identity: form.useIdentity ? { issuer: form.issuer, audience: form.audience, jwks_url: form.jwks_url } : null,
    secure_request_destinations: form.destinations
      .split('\n')
      .map((d) => d.trim())
      .filter(Boolean),
    ...(form.key ? { secure_request_key: form.key } : {}),
  };
}

/** The form input a refused field path belongs to ('identity.issuer' → 'issuer', 'secure_request_destinations[1]' → 'destinations'), or null. */
export function inputOfField(field: string): keyof SettingsForm | null {
  if (field === 'name') return 'name';
  if (field.startsWith('identity.')) {
    const part = field.slice('identity.'.length);
    return part === 'issuer' || part === 'audience' || part === 'jwks_url' ? part : 'useIdentity';
  }
  if (field === 'identity') return 'useIdentity';
  if (field === 'secure_request_key') return 'key';
  if (field.startsWith('secure_request_destinations')) return 'destinations';
  return null;
}
