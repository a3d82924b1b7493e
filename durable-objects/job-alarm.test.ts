/**
 * JobAlarm's retries, on a real object's storage (a ForwardQueueDO with no work of its own) and the
 * injected dispatch port: a failed start and a failing step wait a growing delay for the alarm, a job
 * failing on every try is given up. The clock is a day ahead of the runtime's, so the alarms this sets
 * never fire during the test; each `serve()` stands for the alarm firing at the time it was set to.
 */
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { JobAlarm, RETRY, type JobHandlers } from './job-alarm';
import { JobTable, type NoPayload } from './job-table';

type Jobs = { step: NoPayload; export: { batch: number } };

afterEach(() => vi.restoreAllMocks());

/** Runs `body` in a fresh object with a JobAlarm over its storage; the pending starts are settled by `settle`. */
function inObject(body: (state: DurableObjectState) => Promise<void>) {
  const stub = env.FORWARD_QUEUES.get(env.FORWARD_QUEUES.idFromName(`job-alarm-${crypto.randomUUID()}`));
  return runInDurableObject(stub, async (_instance, state) => {
    try {
      await body(state);
    } finally {
      await state.storage.deleteAlarm();
    }
  });
}

function harness(state: DurableObjectState, handlers: JobHandlers<Jobs>, start: (id: number, alarm: JobAlarm<Jobs>) => Promise<void>) {
  const clock = { now: Date.now() + 86_400_000 };
  const jobs = new JobTable<Jobs>(state.storage.sql);
  const pending: Promise<unknown>[] = [];
  const alarm: JobAlarm<Jobs> = new JobAlarm(
    state.storage,
    jobs,
    handlers,
    { start: (id) => start(id, alarm), waitUntil: (promise) => void pending.push(promise), atOnce: 4 },
    { now: () => clock.now },
  );
  const settle = async () => {
    while (pending.length > 0) await pending.shift();
  };
  /** The alarm fires at the time it is set to. */
  const fire = async () => {
    const at = await state.storage.getAlarm();
    if (at === null) throw new Error('no alarm set');
    const waited = at - clock.now;
    clock.now = at;
    // As the runtime does: the alarm that fires is removed.
    await state.storage.deleteAlarm();
    await alarm.serve();
    await settle();
    return waited;
  };
  return { clock, jobs, alarm, settle, fire };
}

const errorsMatching = (spy: { mock: { calls: unknown[][] } }, pattern: RegExp) =>
  spy.mock.calls.filter((args) => pattern.test(args.map(String).join(' '))).length;

describe('a failed start backs off', () => {
  it('a dispatch that fails 5 times, then works: 6 calls, 1 s doubling, one log line, and the job runs', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    await inObject(async (state) => {
      let calls = 0;
      const ran: number[] = [];
      const h = harness(
        state,
        { step: { background: true, run: async (job) => void (ran.push(job.id), h.jobs.delete(job.id)) }, export: { run: async () => {} } },
        async (id, alarm) => {
          calls++;
          if (calls <= 5) throw new Error('Durable Object is overloaded. Too many requests queued.');
          await alarm.runStarted(id);
        },
      );
      const id = h.jobs.add('step', h.clock.now);
      await h.alarm.arm(true);
      await h.settle();
      // Never tried again from its own catch: one call until the alarm fires.
      expect(calls).toBe(1);
      const waits: number[] = [];
      while (ran.length === 0 && waits.length < 10) waits.push(await h.fire());
      expect(calls).toBe(6);
      expect(ran).toEqual([id]);
      expect(waits).toEqual([1_000, 2_000, 4_000, 8_000, 16_000]);
      expect(await state.storage.getAlarm()).toBeNull();
    });
    expect(errorsMatching(errors, /could not be started/)).toBe(1);
  });

  it('the delay stops growing at a minute', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    await inObject(async (state) => {
      let calls = 0;
      const h = harness(state, { step: { background: true, run: async () => {} }, export: { run: async () => {} } }, async () => {
        // A bound, so that a loop of starts (the old catch) ends and fails the test rather than hanging it.
        if (++calls > 20) return;
        throw new Error('Subrequest depth limit exceeded.');
      });
      h.jobs.add('step', h.clock.now);
      await h.alarm.arm(true);
      await h.settle();
      expect(calls).toBe(1);
      const waits: number[] = [];
      for (let i = 0; i < 8; i++) waits.push(await h.fire());
      expect(waits).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000]);
    });
  });
});

describe('a job failing on every try is given up', () => {
  it('a foreground job: tried RETRY.tries times with a growing delay, then dead, logged with its kind and id, never run again', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    await inObject(async (state) => {
      let runs = 0;
      const h = harness(
        state,
        {
          step: { background: true, run: async () => {} },
          export: {
            run: async () => {
              runs++;
              throw new Error('bad payload');
            },
          },
        },
        async () => {},
      );
      const id = h.jobs.add('export', h.clock.now, { batch: 1 });
      await h.alarm.arm(true);
      const waits: number[] = [];
      while ((await state.storage.getAlarm()) !== null && waits.length < 20) waits.push(await h.fire());
      expect(runs).toBe(RETRY.tries);
      expect(waits).toEqual([0, 1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000]);
      expect(h.jobs.all()).toEqual([]);
      expect(h.jobs.dead()).toEqual([{ id, kind: 'export', died_at: h.clock.now, tries: RETRY.tries, error: 'bad payload', payload: '{"batch":1}' }]);
    });
    expect(errorsMatching(errors, new RegExp(`export job \\d+ given up after ${RETRY.tries} tries`))).toBe(1);
  });

  it('a background job whose handler deals with it goes on (a queue fails its head and serves the next)', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    await inObject(async (state) => {
      const steps: string[] = [];
      const heads = ['bad', 'good'];
      const h = harness(
        state,
        {
          step: {
            background: true,
            tries: 3,
            run: async (job) => {
              steps.push(heads[0]);
              if (heads[0] === 'bad') throw new Error('cannot read the head');
              heads.shift();
              if (heads.length === 0) h.jobs.delete(job.id);
            },
            givenUp: (job) => {
              heads.shift();
              h.jobs.reschedule(job.id, h.clock.now);
              return true;
            },
          },
          export: { run: async () => {} },
        },
        (id, alarm) => alarm.runStarted(id),
      );
      h.jobs.add('step', h.clock.now);
      await h.alarm.arm(true);
      await h.settle();
      while ((await state.storage.getAlarm()) !== null && steps.length < 20) await h.fire();
      expect(steps).toEqual(['bad', 'bad', 'bad', 'good']);
      expect(h.jobs.all()).toEqual([]);
      expect(h.jobs.dead()).toEqual([]);
    });
  });
});

describe('a step never starts the next one', () => {
  it("a background job left due by its step is started by the alarm's chain, never from inside the step's invocation", async () => {
    await inObject(async (state) => {
      let left = 3;
      // How many steps were running (inside the dispatch) when each start was made: 0 = not from a step.
      let inside = 0;
      const startedInside: number[] = [];
      const h = harness(
        state,
        {
          step: {
            background: true,
            run: async (job) => {
              if (--left === 0) h.jobs.delete(job.id);
              else h.jobs.reschedule(job.id, h.clock.now);
            },
          },
          export: { run: async () => {} },
        },
        async (id, alarm) => {
          startedInside.push(inside);
          inside++;
          try {
            await alarm.runStarted(id);
          } finally {
            inside--;
          }
        },
      );
      h.jobs.add('step', h.clock.now);
      await h.alarm.arm(true);
      await h.settle();
      // A step started from outside sets the alarm when it ends; it does not start the next.
      expect(startedInside).toEqual([0]);
      expect(await state.storage.getAlarm()).toBe(h.clock.now);
      // The alarm starts the next step and, as each of its steps ends, the one after it.
      expect(await h.fire()).toBe(0);
      await h.settle();
      expect(startedInside).toEqual([0, 0, 0]);
      expect(h.jobs.all()).toEqual([]);
    });
  });
});
