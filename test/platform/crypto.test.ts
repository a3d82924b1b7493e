import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { decryptText, encryptText, hashSha256Hex, randomId } from '../../src/platform/crypto';

describe('platform crypto helpers', () => {
  it('hashSha256Hex gives the lowercase hex SHA-256 of the UTF-8 text', async () => {
    expect(await hashSha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('randomId draws the requested number of lowercase letters and digits', () => {
    const ids = new Set(Array.from({ length: 200 }, () => randomId(20)));
    expect(ids.size).toBe(200);
    for (const id of ids) expect(id).toMatch(/^[a-z0-9]{20}$/);
    expect(randomId(1)).toMatch(/^[a-z0-9]$/);
  });

  it('encryptText round-trips under the same context, with a fresh IV each time', async () => {
    const a = await encryptText(env, 'hello secret', 'ctx');
    const b = await encryptText(env, 'hello secret', 'ctx');
    expect(a).not.toBe(b);
    expect(a).not.toContain('hello');
    expect(await decryptText(env, a, 'ctx')).toBe('hello secret');
  });

  it('refuses to decrypt under another context, another key or a damaged value (INTERNAL_ERROR)', async () => {
    const sealed = await encryptText(env, 'v', 'secret-key:p1:A');
    await expect(decryptText(env, sealed, 'secret-key:p1:B')).rejects.toMatchObject({ code: 'INTERNAL_ERROR', status: 500 });
    const otherKey = { SECRETS_KEY: btoa(String.fromCharCode(...new Uint8Array(32).fill(7))) };
    await expect(decryptText(otherKey, sealed, 'secret-key:p1:A')).rejects.toMatchObject({ code: 'INTERNAL_ERROR' });
    await expect(decryptText(env, `${sealed.slice(0, -4)}AAAA`, 'secret-key:p1:A')).rejects.toMatchObject({ code: 'INTERNAL_ERROR' });
  });

  it('answers INTERNAL_ERROR naming SECRETS_KEY when it is missing or not 32 bytes', async () => {
    await expect(encryptText({ SECRETS_KEY: undefined }, 'v', 'c')).rejects.toMatchObject({
      code: 'INTERNAL_ERROR',
      message: expect.stringContaining('not configured'),
    });
    await expect(encryptText({ SECRETS_KEY: btoa('short') }, 'v', 'c')).rejects.toMatchObject({
      code: 'INTERNAL_ERROR',
      message: expect.stringContaining('32 bytes'),
    });
    await expect(encryptText({ SECRETS_KEY: '%%%' }, 'v', 'c')).rejects.toMatchObject({ code: 'INTERNAL_ERROR' });
  });
});
