import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import wranglerToml from '../../wrangler.toml?raw';
import type { Env, WorkMessage } from '../../src/env';
import { BATCHES_PER_PLAN_STEP, NEWSLETTER_BATCH_SIZE } from '../../src/mail/newsletter-batches';
import { NEWSLETTER_BATCH_KIND, NEWSLETTER_PLAN_KIND, firstPlanMessage, planNewsletterJob } from '../../src/mail/newsletter-jobs';
import { createSend } from '../../src/mail/newsletter-sends';
import { createProject } from '../helpers/api';

/** Cloudflare's limit on the subrequests of one Worker invocation (paid plan). */
const SUBREQUESTS_PER_INVOCATION = 1_000;

/** The [[queues.consumers]] tables of wrangler.toml as key → raw value maps (one level, enough for these tables). */
function queueConsumers(toml: string): Record<string, string>[] {
  return toml
    .split(/^\[\[queues\.consumers\]\]\s*$/m)
    .slice(1)
    .map((block) => block.split(/^\[/m)[0])
    .map((table) => Object.fromEntries([...table.matchAll(/^(\w+)\s*=\s*(.+?)\s*$/gm)].map(([, key, value]) => [key, value.replace(/^"|"$/g, '')])));
}

describe('newsletter batches and the subrequest limit', () => {
  it('the newsletter queue hands one batch to each invocation, so its provider calls stay under the subrequest limit', () => {
    const consumer = queueConsumers(wranglerToml).find((table) => table.queue === 'svc-newsletters');
    expect(consumer).toBeDefined();
    const perInvocation = Number(consumer!.max_batch_size) * NEWSLETTER_BATCH_SIZE;
    // Room for the D1 and queue calls of the batch besides one provider call per mail.
    expect(perInvocation).toBeLessThanOrEqual(SUBREQUESTS_PER_INVOCATION / 2);
    expect(consumer!.dead_letter_queue).toBe('svc-work-dlq');
  });

  it('a planning step puts its batches on the newsletter queue and only the next step on the work queue', async () => {
    const project = await createProject({ name: 'Queues' });
    const members = Array.from({ length: 2 * NEWSLETTER_BATCH_SIZE * BATCHES_PER_PLAN_STEP + 1 }, (_, i) => `m${String(i).padStart(5, '0')}@example.com`);
    for (let i = 0; i < members.length; i += 50) {
      await env.DB.batch(
        members
          .slice(i, i + 50)
          .map((email) =>
            env.DB.prepare('INSERT INTO subscribers (service_id, grp, email, created) VALUES (?, ?, ?, ?)').bind(project.service_id, 'all', email, 1),
          ),
      );
    }
    await createSend(env.DB, project.service_id, {
      send_id: 'send-queues',
      group_key: 'all',
      message_id: 'n',
      from: 'Queues <no-reply@localhost>',
      subject: 'S',
      html: '<p>x</p>',
      text: 'x',
      service_name: 'Queues',
      ticket_id: null,
      consume_id: null,
      action_path: null,
      created: 1,
    });
    const sent = { work: [] as WorkMessage[], newsletter: [] as WorkMessage[] };
    const recorder = (into: WorkMessage[]) =>
      ({
        send: async (body: WorkMessage) => void into.push(body),
        sendBatch: async (messages: Iterable<{ body: WorkMessage }>) => void into.push(...[...messages].map((m) => m.body)),
      }) as unknown as Queue<WorkMessage>;
    const recordingEnv = { ...env, WORK_QUEUE: recorder(sent.work), NEWSLETTER_QUEUE: recorder(sent.newsletter) } as Env;
    await planNewsletterJob(firstPlanMessage(project.service_id, 'send-queues'), recordingEnv);
    expect(sent.newsletter).toHaveLength(BATCHES_PER_PLAN_STEP);
    expect(sent.newsletter.every((message) => message.kind === NEWSLETTER_BATCH_KIND)).toBe(true);
    expect(sent.work.map((message) => message.kind)).toEqual([NEWSLETTER_PLAN_KIND]);
  });
});
