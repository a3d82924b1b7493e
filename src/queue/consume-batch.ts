import type { Env, WorkMessage } from '../env';
import { WORK_HANDLERS } from './handlers';

/** Runs each message's handler; a failure retries that message alone (dead-lettered after max_retries). */
export async function consumeWorkBatch(batch: MessageBatch<WorkMessage>, env: Env): Promise<void> {
  for (const message of batch.messages) {
    const handler = WORK_HANDLERS[message.body?.kind];
    if (!handler) {
      console.error('work message of unknown kind dropped', message.body?.kind);
      message.ack();
      continue;
    }
    try {
      await handler(message.body, env);
      message.ack();
    } catch (err) {
      console.error('work message failed', message.body.kind, err instanceof Error ? err.message : String(err));
      message.retry({ delaySeconds: Math.min(60, 2 ** message.attempts) });
    }
  }
}
