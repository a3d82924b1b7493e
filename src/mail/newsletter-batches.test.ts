import { describe, expect, it } from 'vitest';
import { chunkForQueue, newsletterSendId, splitIntoBatches } from './newsletter-batches';

describe('newsletter batches', () => {
  it('splits addresses into numbered batches of the batch size, starting at the given number', () => {
    const addresses = Array.from({ length: 250 }, (_, i) => `u${i}@x.test`);
    const batches = splitIntoBatches(addresses, 100, 20);
    expect(batches.map((b) => [b.batch, b.recipients.length])).toEqual([
      [20, 100],
      [21, 100],
      [22, 50],
    ]);
    expect(batches.flatMap((b) => b.recipients)).toEqual(addresses);
    expect(splitIntoBatches([], 100, 0)).toEqual([]);
  });

  it('puts queue messages in groups within the count and byte limits of one sendBatch', () => {
    const items = Array.from({ length: 250 }, (_, i) => ({ i, pad: 'x'.repeat(1000) }));
    const byCount = chunkForQueue(items, 100, 1_000_000);
    expect(byCount.map((chunk) => chunk.length)).toEqual([100, 100, 50]);
    const bySize = chunkForQueue(items, 100, 10_500);
    expect(bySize.every((chunk) => new TextEncoder().encode(JSON.stringify(chunk)).byteLength <= 10_500 + chunk.length)).toBe(true);
    expect(bySize.flat()).toEqual(items);
    expect(chunkForQueue([{ big: 'x'.repeat(50) }], 100, 10)).toHaveLength(1);
  });

  it('the send id is the same for the same consumption and action path, and differs by path', async () => {
    expect(await newsletterSendId('C1', 'actions[0]')).toBe(await newsletterSendId('C1', 'actions[0]'));
    expect(await newsletterSendId('C1', 'actions[0]')).not.toBe(await newsletterSendId('C1', 'actions[1]'));
    expect(await newsletterSendId('C1', 'actions[0]')).toMatch(/^C1-[0-9a-f]{8}$/);
  });
});
