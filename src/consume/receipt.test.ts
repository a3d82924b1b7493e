import { describe, expect, it } from 'vitest';
import { toBase62 } from '../../schemas/encoding';
import { consumeIdTime, consumerName, newConsumeId, receiptHash, tkidOf } from './receipt';

describe('receipts', () => {
  it('consume_id is base62 of the ms timestamp followed by 4 random characters', () => {
    const now = 1_790_000_000_123;
    const id = newConsumeId(now);
    expect(id).toMatch(/^[0-9A-Za-z]+$/);
    expect(id.slice(0, -4)).toBe(toBase62(now));
    expect(consumeIdTime(id)).toBe(now);
  });

  it('tkid has the shape #<ticket_id>#<consume_id>#<consumer>', () => {
    expect(tkidOf('t1', 'abc', consumerName(undefined, '1.2.3.4', 'curl/8'))).toBe('#t1#abc#1.2.3.4(curl/8)');
    expect(tkidOf('t1', 'abc', consumerName('u-1', '1.2.3.4', 'curl/8'))).toBe('#t1#abc#u-1');
  });

  it('the receipt hash is an HMAC the owner can recompute and differs per tkid', async () => {
    const a = await receiptHash('k', '#t#1#x');
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(await receiptHash('k', '#t#1#x')).toBe(a);
    expect(await receiptHash('k', '#t#2#x')).not.toBe(a);
    expect(await receiptHash('other', '#t#1#x')).not.toBe(a);
  });

  it('the receipt hash is HMAC-SHA256(key = receipt key as UTF-8, message = tkid), whichever keys came before', async () => {
    const independent = async (key: string, message: string) => {
      const k = await crypto.subtle.importKey('raw', new TextEncoder().encode(key), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
      const mac = new Uint8Array(await crypto.subtle.sign('HMAC', k, new TextEncoder().encode(message)));
      return Array.from(mac, (b) => b.toString(16).padStart(2, '0')).join('');
    };
    for (const [key, tkid] of [
      ['k', '#t#1#x'],
      ['other', '#t#1#x'],
      ['k', '#t#9#y'],
      ['ké', '#t#1#x'],
      ['other', '#t#2#x'],
    ]) {
      expect(await receiptHash(key, tkid)).toBe(await independent(key, tkid));
    }
  });
});
