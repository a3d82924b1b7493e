/**
 * The minute's alert evaluation fits the Free plan's limits whatever the number of rules (src/alerts/run.ts):
 * the cron evaluates one page, each continuation message the next, each notification is a message of its
 * own. The worst page opens an incident on every one of its rules.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it, vi } from 'vitest';
import { forgetSpent, mostSpentIn, PLAN_LIMITS } from '../../src/platform/strict-limits';
import { RULES_PER_INVOCATION } from '../../src/alerts/run';
import { call, createProject } from '../helpers/api';
import { pauseDestination, resumeDestinations, runCron } from '../alerts/support';

const FREE = PLAN_LIMITS.free;

describe('alert evaluation fits an invocation', () => {
  it('25 rules that all open at once: the cron, each continuation and each notification stay within 50 D1 queries and 50 fetches', async () => {
    const project = await createProject({ plan: 'free' });
    const rules = 25;
    for (let n = 0; n < rules; n++) {
      const made = await call('POST', `/v1/projects/${project.service_id}/alert-rules`, {
        token: project.owner_key,
        body: {
          kind: 'destination_paused',
          name: `rule ${n}`,
          channels: { email: ['a@example.com', 'b@example.com', 'c@example.com', 'd@example.com', 'e@example.com'] },
        },
      });
      expect(made.status).toBe(200);
    }
    const now = Date.now();
    await pauseDestination(project.service_id, now);
    forgetSpent();
    await runCron(now);
    const opened = async () =>
      (await env.DB.prepare('SELECT COUNT(*) AS n FROM alert_incidents WHERE service_id = ?').bind(project.service_id).first<{ n: number }>())?.n;
    await vi.waitFor(async () => expect(await opened()).toBe(rules), { timeout: 30_000, interval: 200 });
    const delivered = async () =>
      (
        await env.DB.prepare('SELECT COUNT(*) AS n FROM alert_incidents WHERE service_id = ? AND last_delivery IS NOT NULL')
          .bind(project.service_id)
          .first<{ n: number }>()
      )?.n;
    await vi.waitFor(async () => expect(await delivered()).toBe(rules), { timeout: 30_000, interval: 200 });
    await resumeDestinations(project.service_id);

    const cron = mostSpentIn('cron * * * * *');
    const messages = mostSpentIn('queue batch of svc-work');
    expect(RULES_PER_INVOCATION).toBeLessThan(rules);
    expect(cron.d1Queries).toBeGreaterThan(RULES_PER_INVOCATION);
    expect(cron.d1Queries).toBeLessThanOrEqual(FREE.d1Queries);
    expect(messages.d1Queries).toBeGreaterThan(0);
    expect(messages.d1Queries).toBeLessThanOrEqual(FREE.d1Queries);
    expect(messages.internet).toBeLessThanOrEqual(FREE.internetSubrequests);
    const mails = await call('GET', `/v1/projects/${project.service_id}/mail-outbox?limit=100`, { token: project.owner_key });
    expect(mails.json.list).toHaveLength(100);
  }, 90_000);
});
