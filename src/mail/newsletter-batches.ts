/** Pure helpers of newsletter sends: batches of recipients and the queue messages that carry them. */

/** Recipients per batch, so per work message. */
export const NEWSLETTER_BATCH_SIZE = 100;
/** Batches one planning step puts on the queue before it hands the rest to the next step. */
export const BATCHES_PER_PLAN_STEP = 20;
/** Queue limits of one sendBatch call (Cloudflare Queues: 100 messages, 256 KB), with room to spare. */
const MAX_MESSAGES_PER_SEND = 100;
const MAX_BYTES_PER_SEND = 200_000;

export interface RecipientBatch {
  batch: number;
  recipients: string[];
}

/** Consecutive batches of `size` addresses, numbered from `firstBatch`. */
export function splitIntoBatches(addresses: string[], size: number, firstBatch: number): RecipientBatch[] {
  const batches: RecipientBatch[] = [];
  for (let start = 0; start < addresses.length; start += size) {
    batches.push({ batch: firstBatch + batches.length, recipients: addresses.slice(start, start + size) });
  }
  return batches;
}

/** Splits items into groups of at most maxCount items and maxBytes of JSON each (an item larger than maxBytes goes alone). */
export function chunkForQueue<T>(items: T[], maxCount = MAX_MESSAGES_PER_SEND, maxBytes = MAX_BYTES_PER_SEND): T[][] {
  const chunks: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const item of items) {
    const size = new TextEncoder().encode(JSON.stringify(item)).byteLength;
    if (current.length > 0 && (current.length >= maxCount || bytes + size > maxBytes)) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push(item);
    bytes += size;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/** The send id of one nlsd run: the consumption and the action's place, so a retried action reuses it. */
export async function newsletterSendId(consumeId: string, actionPath: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(actionPath)));
  return `${consumeId}-${Array.from(digest.slice(0, 4), (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}

/** The idempotency key of one newsletter mail: one send, one address. */
export const newsletterMailKey = (sendId: string, address: string): string => `newsletter:${sendId}:${address}`;
