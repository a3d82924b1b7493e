/** The address rule is the registration's (schemas/), so a mail action and a subscriber accept the same addresses. */
export { isMailAddress } from '../../schemas/mail-address';

/** The address as a subscriber list keys it: trimmed, lower case. */
export const normalizedAddress = (value: string): string => value.trim().toLowerCase();
