/**
 * Counts the messages sent to each queue bound in `env`, and their bytes (the JSON of each body, as a
 * queue of content type "json" carries it). The real binding still sends every message: `send` and
 * `sendBatch` are wrapped, not replaced, so the consumer runs as it always does. The Worker, its Durable
 * Objects and the test share one `env` in the Vitest pool, so every producer is counted; `counting()`
 * says whether the wrap is in place (checked by the capacity test with a message of its own).
 */
import { env } from 'cloudflare:test';

export interface QueueCount {
  messages: number;
  bytes: number;
}

const counts = new Map<string, QueueCount>();
let installed = false;

/** A queue producer binding (workerd's WorkerQueue; a service binding answers any method name, so not duck-typed). */
const isQueue = (value: unknown): value is Queue => typeof value === 'object' && value !== null && value.constructor?.name === 'WorkerQueue';

const bodyBytes = (body: unknown) => new TextEncoder().encode(JSON.stringify(body) ?? '').byteLength;

function count(binding: string, bodies: unknown[]): void {
  const sum = counts.get(binding) ?? { messages: 0, bytes: 0 };
  sum.messages += bodies.length;
  sum.bytes += bodies.reduce<number>((total, body) => total + bodyBytes(body), 0);
  counts.set(binding, sum);
}

/** Wraps every queue binding of `env` once; answers the bindings wrapped. */
export function countQueueMessages(): string[] {
  const wrapped: string[] = [];
  for (const [binding, queue] of Object.entries(env as unknown as Record<string, unknown>)) {
    if (!isQueue(queue)) continue;
    wrapped.push(binding);
    if (installed) continue;
    const send = queue.send.bind(queue);
    const sendBatch = queue.sendBatch.bind(queue);
    counts.set(binding, { messages: 0, bytes: 0 });
    Object.defineProperty(env, binding, {
      configurable: true,
      value: {
        send: (body: unknown, options?: QueueSendOptions) => (count(binding, [body]), send(body, options)),
        sendBatch: (messages: Iterable<MessageSendRequest>, options?: QueueSendBatchOptions) => {
          const list = [...messages];
          count(
            binding,
            list.map((message) => message.body),
          );
          return sendBatch(list, options);
        },
      },
    });
  }
  installed = true;
  return wrapped;
}

/** The messages counted so far, by binding (a copy). */
export function queueMessagesSent(): Record<string, QueueCount> {
  return Object.fromEntries([...counts].map(([binding, sum]) => [binding, { ...sum }]));
}
