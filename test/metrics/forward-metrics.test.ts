/**
 * Extension (issue 37 item 1): every forwarded call that settles, direct or queued, counts in its Secret
 * Key's and its destination's metrics: calls, status classes, bytes relayed, latency percentiles; pushed to
 * D1 by the caller's object's alarm, never on the request's path.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { call, createProject, putSecret, type TestProject } from '../helpers/api';
import { forward, origin, runCallerJobsNow, settledEnvelope, uniquePath } from '../forward/support';

let project: TestProject;
beforeAll(async () => {
  project = await createProject();
  await putSecret(project, 'metrics-key', 'sk_metrics_value');
});

const forwardMetrics = (query: string) => call('GET', `/v1/projects/${project.service_id}/forward/metrics${query}`, { token: project.owner_key });

async function push(): Promise<void> {
  await runCallerJobsNow(project, ['flush-metrics']);
  await runCallerJobsNow(project, ['report-metrics']);
}

describe('forwarding metrics', () => {
  it('counts direct and queued calls per Secret Key and per destination, by status class, with bytes and latency', async () => {
    for (let i = 0; i < 2; i++) {
      expect(
        (
          await forward(project, {
            url: `${origin}${uniquePath('/echo')}`,
            method: 'GET',
            secretName: 'metrics-key',
            headers: { authorization: 'Bearer $CLIENT_SECRET' },
          })
        ).status,
      ).toBe(200);
    }
    const failing = await forward(project, {
      url: `${origin}/fail/metrics-fwd/100/502`,
      method: 'GET',
      secretName: 'metrics-key',
      headers: { authorization: 'Bearer $CLIENT_SECRET' },
    });
    expect(failing.status).toBeLessThan(600);
    const queuedUrl = `${origin}${uniquePath('/echo')}`;
    const queued = await forward(project, {
      url: queuedUrl,
      method: 'GET',
      secretName: 'metrics-key',
      headers: { authorization: 'Bearer $CLIENT_SECRET' },
      queue: 'metrics-q',
    });
    expect(queued.status).toBe(200);
    await settledEnvelope(project, { id: queued.json.id, url: queuedUrl, method: 'GET' });
    await push();

    const byKey = await forwardMetrics('?by=key');
    expect(byKey.status).toBe(200);
    const key = byKey.json.series.find((s: { name: string }) => s.name === 'metrics-key');
    expect(key.totals).toMatchObject({ calls: 4, status: { '2xx': 3, '5xx': 1, '3xx': 0, '4xx': 0, error: 0 } });
    expect(key.totals.bytes).toBeGreaterThan(0);
    expect(key.totals.latency_ms).not.toBeNull();

    const byDestination = (await forwardMetrics('?by=destination')).json;
    const destination = byDestination.series.find((s: { name: string }) => s.name === new URL(origin).origin);
    expect(destination.totals.calls).toBe(4);
  });

  it("counts a forwarding dead letter in its project's dead letters, beside the call in its destination's", async () => {
    const url = `${origin}/fail/metrics-dl-${crypto.randomUUID()}/5/500`;
    const sent = await forward(project, { url, method: 'GET', queue: 'metrics-dl', retry: true });
    expect(sent.status).toBe(200);
    expect((await settledEnvelope(project, { id: sent.json.id, url, method: 'GET' })).status_code).toBe(500);
    await push();
    const whole = await call('GET', `/v1/projects/${project.service_id}/metrics`, { token: project.owner_key });
    expect(whole.json.totals).toMatchObject({ dead_letters: 1, consumptions: 0 });
  });

  it('answers no series for a range with no call, and refuses an unknown "by"', async () => {
    const now = Date.now();
    const empty = await forwardMetrics(`?from=${now - 7_200_000}&to=${now - 3_600_000}`);
    expect(empty.status).toBe(200);
    expect(empty.json.series).toEqual([]);
    const refused = await forwardMetrics('?by=caller');
    expect(refused.status).toBe(400);
    expect(refused.json.code).toBe('INVALID_PARAMETER');
    expect(refused.json.message).toContain('by');
  });
});
