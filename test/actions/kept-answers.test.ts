/**
 * Issue 25 item 4, memory: the answers a run keeps are capped as the log keeps them. 20 consumptions of
 * one ticket run at once, each holding a 1 MiB answer in its Then chain while its next request waits at a
 * gate; the runner's own count of what the runs keep (src/actions/kept-answers.ts) stays under the bound.
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { keptGauge, MAX_KEPT_ANSWER_CHARS } from '../../src/actions/kept-answers';
import { MAX_LOG_VALUE_CHARS } from '../../src/bytes/log-size';
import { createProject, registerTicket, type TestProject } from '../helpers/api';
import { heldAtGate, loopback } from '../forward/support';
import { consumePost, loggedConsumptions, settle } from './run-support';

const origin = inject('loopbackOrigin');
const RUNS = 20;
const MIB = 1_048_576;
let project: TestProject;

beforeAll(async () => {
  project = await createProject();
});

describe('what concurrent runs keep', () => {
  it(`${RUNS} runs of one ticket, each with a 1 MiB answer in its Then chain, keep at most ${RUNS} × (two rows of 64 KiB + a cut answer of 8 KiB)`, async () => {
    const gate = crypto.randomUUID();
    await registerTicket(project, 'mib', {
      actions: [{ act: 'req', exe: { url: `${origin}/sized/${MIB}`, actions: [{ act: 'req', exe: { url: `${origin}/gate/hold/${gate}` } }] } }],
    });
    // The suite's 2-second outbound limit is for one request; 20 answers of 1 MiB on a busy machine need more.
    const limit = env.OUTBOUND_CALL_MS;
    env.OUTBOUND_CALL_MS = '20000';
    try {
      const before = keptGauge.now;
      const runs = Array.from({ length: RUNS }, () => consumePost(project, 'mib'));
      await heldAtGate(gate, RUNS);
      const kept = keptGauge.now - before;
      // The answer (1 MiB of text in `body`, over MAX_KEPT_ANSWER_CHARS as JSON) is kept with its string cut to 4 KiB.
      const bound = RUNS * (2 * MAX_LOG_VALUE_CHARS + 8 * 1024);
      expect(MIB + 2).toBeGreaterThan(MAX_KEPT_ANSWER_CHARS);
      expect(kept).toBeGreaterThan(RUNS * 4 * 1024);
      expect(kept).toBeLessThanOrEqual(bound);
      await loopback(`/gate/open/${gate}`);
      for (const res of await Promise.all(runs)) expect(res.status, res.text.slice(0, 300)).toBe(200);
      expect(keptGauge.now).toBe(before);
    } finally {
      env.OUTBOUND_CALL_MS = limit;
      await loopback(`/gate/open/${gate}`);
    }
    await settle(project, 'mib');
    const logged = await loggedConsumptions(project, 'mib');
    expect(logged).toHaveLength(RUNS);
    expect(logged.every((entry) => entry.failed === 0)).toBe(true);
  }, 120_000);
});
