/**
 * Whether a caller may use a Secret Key for a url (spec 4.3, 5.5): judged at dispatch and again right
 * before a queued request is sent. Pure.
 */
import { destinationVerdict } from '../outbound/destinations';
import type { ForwardCaller } from './caller';

export const DESTINATION_REFUSAL = 'Destination is not allowed for this client secret.';

export interface KeyRules {
  name: string;
  destinations: readonly string[];
  access_group: number;
  locked: boolean;
}

/**
 * Why the caller may not use the key; undefined when they may. A locked key needs a signed-in caller whose
 * access group reaches the key's; an unlocked key is open to anyone, visitors included.
 */
export function accessRefusal(key: KeyRules, caller: Pick<ForwardCaller, 'signedIn' | 'accessGroup'>): string | undefined {
  if (!key.locked) return undefined;
  if (!caller.signedIn) return `The client secret "${key.name}" is locked: sign in to use it.`;
  if (caller.accessGroup < key.access_group) return `The client secret "${key.name}" needs access group ${key.access_group} or above.`;
  return undefined;
}

/** Why the url may not receive the key; undefined when it may (judged on the url as written, token included). */
export function destinationRefusal(url: string, key: KeyRules): string | undefined {
  return destinationVerdict(url, key.destinations).allowed ? undefined : DESTINATION_REFUSAL;
}

export const missingKey = (name: string) => `No client secret is named "${name}".`;

/** The first refusal of using `key` for `url`; undefined when every rule allows it. */
export function keyRefusal(key: KeyRules, caller: Pick<ForwardCaller, 'signedIn' | 'accessGroup'>, url: string): string | undefined {
  return accessRefusal(key, caller) ?? destinationRefusal(url, key);
}
