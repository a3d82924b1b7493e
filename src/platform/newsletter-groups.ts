import { invalidParameter } from '../wire/errors';
import { RESOURCE_NAME_PATTERN } from './schemas';

/** A newsletter group: 'public', 'authorized', a number 2..99, or a named group. */
export type NewsletterGroup = 'public' | 'authorized' | number | string;

const MIN_NUMERIC_GROUP = 2;
const MAX_NUMERIC_GROUP = 99;

/**
 * The stored key of a group (numbers in plain decimal), or null when the group is not valid.
 * All-digit text is a numeric group, so '1', '100' and '07' are refused rather than taken as names.
 */
export function newsletterGroupKey(group: string | number): string | null {
  if (typeof group === 'number') {
    return Number.isInteger(group) && group >= MIN_NUMERIC_GROUP && group <= MAX_NUMERIC_GROUP ? String(group) : null;
  }
  if (/^\d+$/.test(group)) return String(Number(group)) === group ? newsletterGroupKey(Number(group)) : null;
  return RESOURCE_NAME_PATTERN.test(group) ? group : null;
}

/** The group as the API shows it: numeric groups as numbers. */
export const newsletterGroupValue = (key: string): NewsletterGroup => (/^\d+$/.test(key) ? Number(key) : key);

/** The stored key of a group named in a route, or INVALID_PARAMETER naming the valid forms. */
export function requireNewsletterGroupKey(value: string | undefined): string {
  const key = value === undefined ? null : newsletterGroupKey(value);
  if (key === null) {
    throw invalidParameter(`Invalid "group": must be 'public', 'authorized', a number 2 to 99 or a name of 1 to 64 letters, digits, _ or -.`, {
      field: 'group',
    });
  }
  return key;
}
