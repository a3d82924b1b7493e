import type { Env } from '../env';
import { runWorkHandler } from './handlers';
import { workMessageSchema } from './messages';

/**
 * Runs each message's handler; a failure retries that message alone (dead-lettered after
 * max_retries). A message that is not a valid work message is logged and acked: every delivery
 * of it would be refused the same way.
 */
export async function consumeWorkBatch(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  for (const message of batch.messages) {
    const parsed = workMessageSchema.safeParse(message.body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      console.error('invalid work message dropped', kindOf(message.body), `${issue.path.join('.') || 'body'}: ${issue.message}`);
      message.ack();
      continue;
    }
    try {
      await runWorkHandler(parsed.data, env);
      message.ack();
    } catch (err) {
      console.error('work message failed', parsed.data.kind, err instanceof Error ? err.message : String(err));
      message.retry({ delaySeconds: Math.min(60, 2 ** message.attempts) });
    }
  }
}

const kindOf = (body: unknown): unknown => (typeof body === 'object' && body !== null && 'kind' in body ? body.kind : undefined);
