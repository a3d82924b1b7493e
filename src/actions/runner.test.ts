import { describe, expect, it } from 'vitest';
import type { TicketAction } from '../../schemas/ticket-types';
import type { Env } from '../env';
import type { ActionContext } from '../engine/context';
import { MAX_LOG_VALUE_CHARS } from '../bytes/log-size';
import { MAX_KEPT_ANSWER_CHARS } from './kept-answers';
import { runActions, startRun, type RunnerDeps, type RunState } from './runner';
import type { ActionModule, ActionResult } from './types';

const ctx: ActionContext = {
  body: { name: 'Ann', n: 2 },
  params: {},
  headers: {},
  placeholders: { P: 'cap' },
  ip: '203.0.113.9',
  user_agent: 'ua',
  method: 'POST',
  ticket: { id: 't', service: 'svc', owner: 'owner', consume_id: 'c1', timestamp: 1, hash: 'h' },
};
const receipt = { tkid: '#t#c1#203.0.113.9(ua)', hash: 'h' };

/** A test action kind: renders exe.value, records it, answers it; exe.fail makes it fail with that code. */
function recorder() {
  const sent: unknown[] = [];
  const module: ActionModule = {
    async run({ exe, render }): Promise<ActionResult> {
      const value = render(exe.value);
      sent.push(value);
      if (typeof exe.fail === 'string')
        return {
          ok: false,
          failure: { code: exe.fail as 'ACTION_FAILED', message: `failed: ${String(value)}`, detail: { why: 'test' } },
          row: { sent: value },
        };
      return { ok: true, answer: exe.answer === undefined ? value : exe.answer, row: { sent: value } };
    },
  };
  return { sent, module };
}

const act = (value: unknown, extra: Partial<TicketAction> & { fail?: string; answer?: unknown; then?: TicketAction[] } = {}): TicketAction => {
  const { fail, answer, then, ...rest } = extra;
  return {
    act: 'pstr',
    exe: { value, ...(fail ? { fail } : {}), ...(answer !== undefined ? { answer } : {}), ...(then ? { actions: then } : {}) },
    ...rest,
  };
};
const resp = (exe: Record<string, unknown>, err?: TicketAction[]): TicketAction => ({ act: 'resp', exe, ...(err ? { err } : {}) });
const cond = (response: unknown[], err?: TicketAction[]): TicketAction => ({ act: 'cond', exe: { response }, ...(err ? { err } : {}) });

function deps(modules: Record<string, ActionModule>, extra: Partial<RunnerDeps> & { deadlineIn?: number } = {}): RunnerDeps {
  const { deadlineIn, ...rest } = extra;
  return {
    services: { env: {} as Env, serviceId: 'svc', ownerId: 'owner', plan: 'free', now: () => Date.now(), deadline: Date.now() + (deadlineIn ?? 25_000) },
    modules,
    sleep: async () => {},
    ...rest,
  };
}

const run = (actions: TicketAction[], d: RunnerDeps) => runActions(startRun(actions, ctx, receipt), d);

describe('action runner', () => {
  it('runs the actions in order and writes one row per action with what it sent and got back', async () => {
    const { sent, module } = recorder();
    const outcome = await run([act('${body[name]}'), act('n=${body[n]}')], deps({ pstr: module }));
    expect(sent).toEqual(['Ann', 'n=2']);
    expect(outcome.error).toBeUndefined();
    expect(outcome.rows).toEqual([
      { seq: 0, path: 'actions[0]', act: 'pstr', detail: { sent: 'Ann', received: 'Ann', attempts: 1 } },
      { seq: 1, path: 'actions[1]', act: 'pstr', detail: { sent: 'n=2', received: 'n=2', attempts: 1 } },
    ]);
  });

  it('a Then chain reads the answer of its action as ${response}', async () => {
    const { sent, module } = recorder();
    const then = [act('got ${response[id]}', { then: [act('${response}')] })];
    const outcome = await run([act('x', { answer: { id: 42 }, then })], deps({ pstr: module }));
    expect(sent).toEqual(['x', 'got 42', 'got 42']);
    expect(outcome.rows.map((r) => r.path)).toEqual(['actions[0]', 'actions[0].exe.actions[0]', 'actions[0].exe.actions[0].exe.actions[0]']);
  });

  it('a row is cut as the log keeps it when it is recorded, while its Then chain still reads the whole answer up to its cap', async () => {
    const { sent, module } = recorder();
    // The largest answer a Then chain keeps whole: {"text":"z…z"} of MAX_KEPT_ANSWER_CHARS characters.
    const big = { text: 'z'.repeat(MAX_KEPT_ANSWER_CHARS - '{"text":""}'.length) };
    const then = [act('${response[text]}')];
    const outcome = await run(
      Array.from({ length: 5 }, () => act('x', { answer: big, then })),
      deps({ pstr: module }),
    );
    expect(outcome.error).toBeUndefined();
    // Each Then action got the whole megabyte; no row the run holds is larger than the log's cap.
    expect(sent.filter((value) => value === big.text)).toHaveLength(5);
    expect(outcome.rows).toHaveLength(10);
    for (const row of outcome.rows) expect(JSON.stringify(row.detail).length).toBeLessThanOrEqual(MAX_LOG_VALUE_CHARS + 100);
    expect(outcome.rows[0].detail).toMatchObject({ truncated: true, attempts: 1 });
  });

  it('an answer over its cap is kept for the Then chain as the log keeps it: long strings cut', async () => {
    const { sent, module } = recorder();
    const big = { text: 'z'.repeat(MAX_KEPT_ANSWER_CHARS), id: 7 };
    const outcome = await run([act('x', { answer: big, then: [act('${response[id]}'), act('${response[text]}')] })], deps({ pstr: module }));
    expect(outcome.error).toBeUndefined();
    expect(sent[1]).toBe(7);
    expect(sent[2]).toMatch(/^z{4096}…\[\d+ more characters cut\]$/);
  });

  it('a failed action ends the run with an error body of stage action naming act and path', async () => {
    const { sent, module } = recorder();
    const outcome = await run([act('a'), act('b', { fail: 'ACTION_FAILED' }), act('never')], deps({ pstr: module }));
    expect(sent).toEqual(['a', 'b']);
    expect(outcome.error).toEqual({
      code: 'ACTION_FAILED',
      message: 'failed: b',
      stage: 'action',
      action: { act: 'pstr', path: 'actions[1]' },
      detail: { why: 'test' },
    });
    expect(outcome.rows[1].detail).toMatchObject({ sent: 'b', error: { code: 'ACTION_FAILED', message: 'failed: b' }, attempts: 1 });
  });

  it('no rollback: what ran before a failure stays done', async () => {
    const { sent, module } = recorder();
    await run([act('applied'), act('x', { fail: 'ACTION_FAILED' })], deps({ pstr: module }));
    expect(sent[0]).toBe('applied');
  });

  it('an err chain runs on failure, reads ${error}, and when it completes the run fails with the original error', async () => {
    const { sent, module } = recorder();
    const err = [act('${error[code]} ${error[action]} ${error[path]} ${error[detail][why]}'), act('${error[message]}')];
    const outcome = await run([act('boom', { fail: 'ACTION_FAILED', err }), act('never')], deps({ pstr: module }));
    expect(sent).toEqual(['boom', 'ACTION_FAILED pstr actions[0] test', 'failed: boom']);
    expect(outcome.error).toMatchObject({ code: 'ACTION_FAILED', action: { act: 'pstr', path: 'actions[0]' } });
    expect(outcome.rows.map((r) => r.path)).toEqual(['actions[0]', 'actions[0].err[0]', 'actions[0].err[1]']);
  });

  it('a failure inside an err chain runs its own err chain and the run fails with it, at a path such as actions[0].err[0]', async () => {
    const { sent, module } = recorder();
    const inner = [act('inner ${error[path]}')];
    const err = [act('second', { fail: 'REQUEST_FAILED', err: inner }), act('skipped')];
    const outcome = await run([act('first', { fail: 'ACTION_FAILED', err })], deps({ pstr: module }));
    expect(sent).toEqual(['first', 'second', 'inner actions[0].err[0]']);
    expect(outcome.error).toMatchObject({ code: 'REQUEST_FAILED', stage: 'action', action: { act: 'pstr', path: 'actions[0].err[0]' } });
    expect(outcome.rows.map((r) => r.path)).toEqual(['actions[0]', 'actions[0].err[0]', 'actions[0].err[0].err[0]']);
  });

  it('a failure in a Then chain fails the run at its own path', async () => {
    const { module } = recorder();
    const outcome = await run([act('ok', { then: [act('x'), act('y', { fail: 'ACTION_FAILED' })] }), act('never')], deps({ pstr: module }));
    expect(outcome.error?.action).toEqual({ act: 'pstr', path: 'actions[0].exe.actions[1]' });
  });

  it('a reference that does not resolve fails the action before it does anything', async () => {
    const { sent, module } = recorder();
    const outcome = await run([act('${body[missing]}')], deps({ pstr: module }));
    expect(sent).toEqual([]);
    expect(outcome.error).toMatchObject({ code: 'PATH_NOT_FOUND', stage: 'action', action: { act: 'pstr', path: 'actions[0]' } });
  });

  it('a kind with no registered module fails with INTERNAL_ERROR', async () => {
    const outcome = await run([{ act: 'mail', exe: {} }], deps({}));
    expect(outcome.error).toMatchObject({ code: 'INTERNAL_ERROR', stage: 'action', action: { act: 'mail', path: 'actions[0]' } });
  });

  it('a module that crashes fails with INTERNAL_ERROR and the err chain still runs', async () => {
    const { sent, module } = recorder();
    const crashing: ActionModule = {
      run: async () => {
        throw new TypeError('bug');
      },
    };
    const outcome = await run([{ act: 'req', exe: {}, err: [act('${error[code]}')] }], deps({ req: crashing, pstr: module }));
    expect(outcome.error).toMatchObject({ code: 'INTERNAL_ERROR', message: 'The action failed unexpectedly.' });
    expect(sent).toEqual(['INTERNAL_ERROR']);
  });

  describe('retry', () => {
    function flaky(failures: number) {
      let calls = 0;
      const module: ActionModule = {
        async run() {
          calls += 1;
          return calls <= failures ? { ok: false, failure: { code: 'REQUEST_FAILED', message: 'down' } } : { ok: true, answer: 'up' };
        },
      };
      return { module, calls: () => calls };
    }

    it('retries an action with retry, 1, 2 and 4 seconds apart, and the row shows the attempts', async () => {
      const { module, calls } = flaky(2);
      const waits: number[] = [];
      const outcome = await run([{ act: 'req', exe: {}, retry: true }], deps({ req: module }, { sleep: async (ms) => void waits.push(ms) }));
      expect(outcome.error).toBeUndefined();
      expect(calls()).toBe(3);
      expect(waits).toEqual([1_000, 2_000]);
      expect(outcome.rows[0].detail).toMatchObject({ received: 'up', attempts: 3, retried: true });
    });

    it('gives up after 3 more tries and then runs the err chain once', async () => {
      const { module, calls } = flaky(99);
      const { sent, module: rec } = recorder();
      const outcome = await run([{ act: 'req', exe: {}, retry: true, err: [act('handled')] }], deps({ req: module, pstr: rec }));
      expect(calls()).toBe(4);
      expect(sent).toEqual(['handled']);
      expect(outcome.error).toMatchObject({ code: 'REQUEST_FAILED' });
      expect(outcome.rows[0].detail).toMatchObject({ attempts: 4, retried: true, error: { code: 'REQUEST_FAILED' } });
    });

    it('never retries inside a Then chain', async () => {
      const { module, calls } = flaky(99);
      const { module: rec } = recorder();
      const outcome = await run([act('x', { then: [{ act: 'req', exe: {}, retry: true }] })], deps({ req: module, pstr: rec }));
      expect(calls()).toBe(1);
      expect(outcome.rows[1].detail).toMatchObject({ attempts: 1 });
    });
  });

  describe('time budget', () => {
    it('an action that would start after the deadline fails with TIMEOUT and does not run', async () => {
      const { sent, module } = recorder();
      let time = 0;
      const d = deps({ pstr: module });
      d.services = { ...d.services, now: () => time, deadline: 25_000 };
      const slow: ActionModule = { run: async () => ((time += 26_000), { ok: true, answer: 1 }) };
      const outcome = await run([{ act: 'req', exe: {} }, act('late', { err: [act('err chain')] })], { ...d, modules: { req: slow, pstr: module } });
      expect(sent).toEqual([]);
      expect(outcome.error).toMatchObject({ code: 'TIMEOUT', stage: 'action', action: { act: 'pstr', path: 'actions[1]' } });
      expect(outcome.rows[1].detail).toMatchObject({ attempts: 0, error: { code: 'TIMEOUT' } });
    });

    it('an action still running when the budget runs out fails with TIMEOUT', async () => {
      const hanging: ActionModule = { run: () => new Promise(() => {}) };
      const outcome = await run([{ act: 'req', exe: {} }], deps({ req: hanging }, { deadlineIn: 20 }));
      expect(outcome.error).toMatchObject({ code: 'TIMEOUT', action: { act: 'req', path: 'actions[0]' } });
    });
  });

  describe('resp', () => {
    it('answers with its templated status and body and stops the run by default', async () => {
      const { sent, module } = recorder();
      const outcome = await run([resp({ status: 201, body: { hello: '${body[name]}', n: '${body[n]}' } }), act('never')], deps({ pstr: module }));
      expect(outcome.respond).toEqual({ status: 201, body: { hello: 'Ann', n: 2 } });
      expect(outcome.continuation).toBeUndefined();
      expect(sent).toEqual([]);
      expect(outcome.rows[0].detail).toMatchObject({ sent: { status: 201, body: { hello: 'Ann', n: 2 }, resume: 'stop' } });
    });

    it('without a body answers the receipt { tkid, hash }', async () => {
      const outcome = await run([resp({})], deps({}));
      expect(outcome.respond).toEqual({ status: 200, body: receipt });
    });

    it('an error status is an answer, not a failure', async () => {
      const outcome = await run([resp({ status: 404, body: 'nope' })], deps({}));
      expect(outcome).toMatchObject({ respond: { status: 404, body: 'nope' } });
      expect(outcome.error).toBeUndefined();
    });

    it('a status reference resolving outside 200..599 fails with ACTION_FAILED', async () => {
      for (const status of ['${body[name]}', '${body[n]}']) {
        const outcome = await run([resp({ status })], deps({}));
        expect(outcome.error).toMatchObject({ code: 'ACTION_FAILED', action: { act: 'resp', path: 'actions[0]' } });
      }
    });

    it('a second resp in the same run fails with ALREADY_RESPONDED', async () => {
      const { module } = recorder();
      const first = await run([resp({ resume: '0m' }), act('x'), resp({})], deps({ pstr: module }));
      const rest = await runActions(first.continuation!.state, deps({ pstr: module }));
      expect(rest.error).toMatchObject({ code: 'ALREADY_RESPONDED', stage: 'action', action: { act: 'resp', path: 'actions[2]' } });
    });

    it('resume stores the rest of the run, which goes on from the next action (also after a JSON round trip)', async () => {
      const { sent, module } = recorder();
      const before = Date.now();
      const then = [resp({ body: 'early', resume: '10m' }), act('then ${response}')];
      const outcome = await run([act('a', { then }), act('after')], deps({ pstr: module }));
      expect(outcome.respond).toEqual({ status: 200, body: 'early' });
      expect(sent).toEqual(['a']);
      const { state, resumeAt } = outcome.continuation!;
      expect(resumeAt).toBeGreaterThanOrEqual(before + 600_000);
      const stored: RunState = JSON.parse(JSON.stringify({ ...state, rows: [] }));
      const rest = await runActions(stored, deps({ pstr: module }));
      expect(sent).toEqual(['a', 'then a', 'after']);
      expect(rest.error).toBeUndefined();
      expect(rest.rows.map((r) => [r.seq, r.path])).toEqual([
        [2, 'actions[0].exe.actions[1]'],
        [3, 'actions[1]'],
      ]);
    });

    it('a resp with nothing left after it is not a queued run', async () => {
      let metered = 0;
      const outcome = await run([resp({ resume: '0m' })], deps({}, { meterQueuedRun: async () => (metered++, true) }));
      expect(outcome.continuation).toBeUndefined();
      expect(metered).toBe(0);
    });

    it('a queued run past the quota fails the resp with QUOTA_EXCEEDED before it answers', async () => {
      const { sent, module } = recorder();
      const outcome = await run(
        [resp({ resume: '0m' }, [act('quota ${error[code]}')]), act('x')],
        deps({ pstr: module }, { meterQueuedRun: async () => false }),
      );
      expect(outcome.respond).toBeUndefined();
      expect(outcome.error).toMatchObject({ code: 'QUOTA_EXCEEDED', stage: 'action', action: { act: 'resp', path: 'actions[0]' } });
      expect(sent).toEqual(['quota QUOTA_EXCEEDED']);
    });

    it('a resp in an err chain answers the caller and the run still fails with the original error', async () => {
      const outcome = await run([act('x', { fail: 'ACTION_FAILED', err: [resp({ status: 200, body: '${error[code]}' })] })], deps({ pstr: recorder().module }));
      expect(outcome.respond).toEqual({ status: 200, body: 'ACTION_FAILED' });
      expect(outcome.error).toMatchObject({ code: 'ACTION_FAILED', action: { path: 'actions[0]' } });
    });
  });

  describe('cond', () => {
    it('passes when the answer meets the rows and the chain goes on', async () => {
      const { sent, module } = recorder();
      const then = [cond([{ key: 'status', operator: '=', value: 'paid' }]), act('ok')];
      const outcome = await run([act('x', { answer: { status: 'paid' }, then })], deps({ pstr: module }));
      expect(outcome.error).toBeUndefined();
      expect(sent).toEqual(['x', 'ok']);
    });

    it('a failing row fails the chain with CONDITION_FAILED and detail { field: response, keys }', async () => {
      const { sent, module } = recorder();
      const rows = [
        { key: 'status', operator: '=', value: 'paid' },
        { key: 'total', operator: '>', value: 10 },
        { key: 'total', operator: '=', value: 5 },
      ];
      const then = [cond(rows), act('never')];
      const outcome = await run([act('x', { answer: { status: 'open', total: 3 }, then })], deps({ pstr: module }));
      expect(sent).toEqual(['x']);
      expect(outcome.error).toMatchObject({
        code: 'CONDITION_FAILED',
        stage: 'action',
        action: { act: 'cond', path: 'actions[0].exe.actions[0]' },
        detail: { field: 'response', keys: ['status', 'total'] },
      });
    });

    it('values may read ${response} and ${placeholder}; setValueWhenMatch and captures reach later actions', async () => {
      const { sent, module } = recorder();
      const rows = [
        { key: 'copy', operator: '=', value: '${response[orig]}', setValueWhenMatch: 'replaced-${placeholder[P]}' },
        { key: 'orig', placeholder: 'ORIG' },
      ];
      const then = [cond(rows), act('${response[copy]} ${placeholder[ORIG]}')];
      await run([act('x', { answer: { orig: 'o', copy: 'o' }, then }), act('${placeholder[ORIG]}')], deps({ pstr: module }));
      expect(sent).toEqual(['x', 'replaced-cap o', 'o']);
    });

    it("a row keyed '' reads the whole answer as text", async () => {
      const { module } = recorder();
      const text = await run([act('x', { answer: 'SUCCESS: sent', then: [cond([{ key: '', operator: '>=', value: 'SUCCESS' }])] })], deps({ pstr: module }));
      expect(text.error).toBeUndefined();
      const json = await run([act('x', { answer: { a: 1 }, then: [cond([{ key: '', operator: '=', value: '{"a":1}' }])] })], deps({ pstr: module }));
      expect(json.error).toBeUndefined();
    });

    it('a cond value reading a placeholder never captured fails with PLACEHOLDER_MISSING', async () => {
      const { module } = recorder();
      const outcome = await run([act('x', { then: [cond([{ key: '', operator: '=', value: '${placeholder[NONE]}' }])] })], deps({ pstr: module }));
      expect(outcome.error).toMatchObject({ code: 'PLACEHOLDER_MISSING', action: { act: 'cond' } });
    });
  });
});

describe('a failure left to a later attempt (deferFailure, the retry schedule of a continuation)', () => {
  it('ends the run deferred at the failed action: no row for it, no err chain; running the state again goes on from that action', async () => {
    const { sent, module } = recorder();
    const state = startRun([act('done'), act('flaky', { fail: 'REQUEST_FAILED', err: [act('alert')] }), act('after')], ctx, receipt);
    const asked: string[] = [];
    const deferring = deps({ pstr: module }, { deferFailure: ({ path, failure }) => (asked.push(`${path} ${failure.code}`), true) });
    const first = await runActions(state, deferring);
    expect(first).toEqual({ rows: [expect.objectContaining({ seq: 0, path: 'actions[0]' })], deferred: true });
    expect(asked).toEqual(['actions[1] REQUEST_FAILED']);
    expect(sent).toEqual(['done', 'flaky']);
    // The next attempt: the failed action runs again, the one before it does not; this time it is not deferred.
    const last = await runActions(state, deps({ pstr: module }, { deferFailure: () => false }));
    expect(sent).toEqual(['done', 'flaky', 'flaky', 'alert']);
    expect(last.error).toMatchObject({ code: 'REQUEST_FAILED', action: { path: 'actions[1]' } });
    expect(last.rows.map((r) => [r.seq, r.path])).toEqual([
      [0, 'actions[0]'],
      [1, 'actions[1]'],
      [2, 'actions[1].err[0]'],
    ]);
  });

  it('is never asked inside an err chain', async () => {
    const { module } = recorder();
    const asked: string[] = [];
    const outcome = await run(
      [act('first', { fail: 'ACTION_FAILED', err: [act('in err', { fail: 'REQUEST_FAILED' })] })],
      deps({ pstr: module }, { deferFailure: ({ path }) => (asked.push(path), false) }),
    );
    expect(asked).toEqual(['actions[0]']);
    expect(outcome.error).toMatchObject({ action: { path: 'actions[0].err[0]' } });
  });
});
