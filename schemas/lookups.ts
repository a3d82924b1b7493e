import { invalidField } from './paths';

/** What registration must look up in the project's store (secret keys, mail templates, newsletters). */
export interface RegistrationLookups {
  secretExists(name: string): Promise<boolean>;
  templateExists(templateId: string): Promise<boolean>;
  newsletterExists(group: string, messageId: string): Promise<boolean>;
  /** Whether the Secret Key holds a public key of this algorithm (signature extension); absent = not checked. */
  publicKeyUsable?(name: string, algorithm: 'ed25519' | 'ecdsa-p256-sha256' | 'rsa-sha256'): Promise<boolean>;
}

/** A name found while validating, checked against the store once the whole ticket is known to be well formed. */
export interface ExistenceCheck {
  path: string;
  message: string;
  exists(lookups: RegistrationLookups): Promise<boolean>;
}

/** Lookups in flight at once: an invocation holds at most 6 connections open (Workers limits). */
const LOOKUPS_AT_ONCE = 6;

/** Looks every name up, a few at once; the first one missing is refused at its path. */
export async function requireExisting(checks: readonly ExistenceCheck[], lookups: RegistrationLookups): Promise<void> {
  const found: boolean[] = [];
  for (let i = 0; i < checks.length; i += LOOKUPS_AT_ONCE) {
    found.push(...(await Promise.all(checks.slice(i, i + LOOKUPS_AT_ONCE).map((check) => check.exists(lookups)))));
  }
  const missing = checks.find((_, i) => !found[i]);
  if (missing) throw invalidField(missing.path, missing.message);
}
