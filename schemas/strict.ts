import * as z from 'zod';

/** Unknown keys that mean an older ticket format or a misplaced member; reported before any other key. */
const TELLING_KEYS = ['request', 'condition', 'match', 'retry', 'actions'];

/** Fix messages for keys an action or its exe no longer carries. */
export const ACTION_KEY_FIXES: Record<string, string> = {
  condition: 'an action carries no condition: check the response with a cond action inside exe.actions (the Then chain)',
  match: 'an action carries no match: check the response with a cond action inside exe.actions (the Then chain)',
};

/** Of the unknown keys of one object, the one the refusal is about. */
export function pickUnknownKey(keys: readonly string[]): string {
  return keys.find((key) => TELLING_KEYS.includes(key)) ?? keys[0];
}

export function isTellingKey(key: string): boolean {
  return TELLING_KEYS.includes(key);
}

/**
 * A strict object. Its unknown-key refusal lists the accepted keys, or gives the fix when the key is
 * in `fixes`; the key itself ends the field path (see issues.ts).
 */
export function strictObject<S extends z.core.$ZodLooseShape>(shape: S, fixes: Record<string, string> = ACTION_KEY_FIXES) {
  const accepted = Object.keys(shape).join(', ');
  return z.strictObject(shape, {
    error: (issue) => {
      if (issue.code !== 'unrecognized_keys') return undefined;
      return fixes[pickUnknownKey(issue.keys)] ?? `unknown key; accepted keys: ${accepted}`;
    },
  });
}
