/** What registration must look up in the project's store (secret keys, mail templates, newsletters). */
export interface RegistrationLookups {
  secretExists(name: string): Promise<boolean>;
  templateExists(templateId: string): Promise<boolean>;
  newsletterExists(group: string, messageId: string): Promise<boolean>;
}

/** A name found while validating, checked against the store once the whole ticket is known to be well formed. */
export interface ExistenceCheck {
  path: string;
  message: string;
  exists(lookups: RegistrationLookups): Promise<boolean>;
}
