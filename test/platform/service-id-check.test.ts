/** The keyed check of service ids (src/platform/service-ids.ts), kept per isolate once an id passes it. */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { carriesCheck, newServiceId } from '../../src/platform/service-ids';

const underKey = (key: string) => ({ SECRETS_KEY: key });
/** The id with its last check character changed: a made-up id of the right shape. */
const tampered = (id: string) => id.slice(0, -1) + (id.endsWith('a') ? 'b' : 'a');

describe('service id check', () => {
  it('an id passes under the key it was made with, again and again, and never under another key', async () => {
    const keyA = env.SECRETS_KEY as string;
    const keyB = btoa('k'.repeat(32));
    const id = await newServiceId(underKey(keyA));
    for (let i = 0; i < 3; i++) expect(await carriesCheck(underKey(keyA), id)).toBe(true);
    // The id was seen under key A: under key B it is checked again, and fails.
    expect(await carriesCheck(underKey(keyB), id)).toBe(false);
    expect(await carriesCheck(underKey(keyA), id)).toBe(true);
  });

  it('a made-up id fails every time, beside a valid id that passes', async () => {
    const key = env.SECRETS_KEY as string;
    const id = await newServiceId(underKey(key));
    expect(await carriesCheck(underKey(key), id)).toBe(true);
    for (let i = 0; i < 2; i++) {
      expect(await carriesCheck(underKey(key), tampered(id))).toBe(false);
      expect(await carriesCheck(underKey(key), id.toUpperCase())).toBe(false);
    }
  });
});
