/**
 * Runs a ticket's actions (spec 1.2, 2.4): in order, each templated right before it runs; the Then
 * chain of an answering action reads its answer as ${response}; a failed action runs its err chain
 * (reading ${error}) and then the run fails; retry where asked; a 25-second
 * budget; no rollback. The run is an explicit stack of chain frames, so the rest of a run after a
 * resp can be stored as JSON and picked up later (by the TicketDO's alarm).
 */
import type { ConditionRow, TicketAction } from '../../schemas/ticket-types';
import { renderValue, type TemplateScope } from '../engine/template';
import { ActionError, type ActionFailure, type ErrorBody } from '../wire/errors';
import { fitForLog } from '../bytes/log-size';
import { withinDeadline } from './budget';
import { addKept, jsonChars, keptAnswer } from './kept-answers';
import type { ActionContext, ErrorValue } from '../engine/context';
import { checkAnswer } from './cond';
import { ACTION_MODULES } from './registry';
import { respBody, respResume, respStatus } from './resp';
import { runWithRetry } from './retry';
import type { ActionModule, ActionResult, ActionRow, ActionRun, ActionServices } from './types';

/** One chain being run: the ticket's actions, a Then chain or an err chain. */
interface RunFrame {
  kind: 'main' | 'then' | 'err';
  /** Where the chain stands, e.g. 'actions', 'actions[0].exe.actions', 'actions[1].err'. */
  path: string;
  actions: TicketAction[];
  /** Index of the next action to run. */
  next: number;
  /** At or below a Then chain: nothing here is retried. */
  inThen: boolean;
  /** ${response}: the answer of the nearest enclosing answering action. */
  response?: { value: unknown };
  /** ${error}: the failure the nearest enclosing err chain handles. */
  error?: ErrorValue;
  /** Set inside an err chain: the failure the run ends with once that chain is done. */
  failure?: ErrorBody;
}

/** Everything a run needs to go on; plain JSON. */
export interface RunState {
  ctx: ActionContext;
  receipt: { tkid: string; hash: string };
  frames: RunFrame[];
  /** A resp already answered the caller (a second one fails with ALREADY_RESPONDED). */
  responded: boolean;
  /** seq of the next action row (rows of a consumption are numbered across its continuation). */
  nextSeq: number;
  /** Action rows written by this part of the run. */
  rows: ActionRow[];
  /** A legacy ticket (spec 9.2): its cond rows read by the previous rules. */
  legacy?: true;
  /** A ticket without rules_version: a req action answers its body alone, not { status, headers, body }. */
  bodyAlone?: true;
}

/** How a ticket's rules shape its run (both absent on a current ticket). */
export interface RunRules {
  legacy?: true;
  bodyAlone?: true;
}

export interface RunOutcome {
  rows: ActionRow[];
  /** The run failed: the latest failure (an err chain's own failure replaces the one it handled). */
  error?: ErrorBody;
  /** A resp answered: the caller gets this instead of the receipt or the error. */
  respond?: { status: number; body: unknown };
  /** The rest of the run after a resp that asked to go on: run it at resumeAt with runActions. */
  continuation?: { state: RunState; resumeAt: number };
  /** deferFailure took a failure: the state stands at the failed action, to be run again later. */
  deferred?: true;
}

/** A failed action the run may leave to a later attempt (deferFailure). */
export interface FailedAction {
  action: TicketAction;
  path: string;
  failure: ActionFailure;
  /** What the action row would show (a req's `received` answer, its headers included). */
  row?: Record<string, unknown>;
  /** The run's state standing at this action, as a later attempt would start it (a dead letter keeps it). */
  stateAt?: () => RunState;
}

export interface RunnerDeps {
  services: ActionServices;
  /** Defaults to the registry (src/actions/registry.ts). */
  modules?: Partial<Record<string, ActionModule>>;
  /** Waits between retries; injected so tests do not wait real seconds. */
  sleep?: (ms: number) => Promise<void>;
  /** Counts one queued run (a run that goes on after resp); false = the plan's monthly quota is used up. */
  meterQueuedRun?: () => Promise<boolean>;
  /** Called after each action with the state so far (continuations checkpoint it). */
  onProgress?: (state: RunState) => void;
  /**
   * A continuation's retry schedule (extension): answers true to leave this failure to a later attempt.
   * The run then ends at once, deferred, its state at the failed action: no row for it, no err chain yet.
   * Never asked inside an err chain.
   */
  deferFailure?: (failed: FailedAction) => boolean;
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The state of a run that has not started. */
export function startRun(actions: TicketAction[], ctx: ActionContext, receipt: { tkid: string; hash: string }, rules: RunRules = {}): RunState {
  return { ctx, receipt, responded: false, nextSeq: 0, rows: [], frames: [{ kind: 'main', path: 'actions', actions, next: 0, inThen: false }], ...rules };
}

/** What a Then chain reads as ${response}: a req's whole answer, or its body alone on a ticket without rules_version. */
function thenResponse(state: RunState, action: TicketAction, answer: unknown): unknown {
  if (!state.bodyAlone || action.act !== 'req') return answer;
  return (answer as { body?: unknown } | undefined)?.body;
}

/** What the run keeps now: its Then chains' answers and its rows, in JSON characters (see kept-answers.ts). */
const keptChars = (state: RunState) =>
  state.frames.reduce((sum, frame) => sum + (frame.kind === 'then' && frame.response ? jsonChars(frame.response.value) : 0), 0) + jsonChars(state.rows);

/** Runs from where `state` stands until the run ends or a resp asks to go on later. Mutates state. */
export async function runActions(state: RunState, deps: RunnerDeps): Promise<RunOutcome> {
  const counted = { chars: keptChars(state) };
  addKept(counted.chars);
  try {
    return await runSteps(state, deps, counted);
  } finally {
    addKept(-counted.chars);
  }
}

async function runSteps(state: RunState, deps: RunnerDeps, counted: { chars: number }): Promise<RunOutcome> {
  const { services } = deps;
  /** Counts a change of what the run keeps. */
  const keep = (chars: number) => {
    counted.chars += chars;
    addKept(chars);
  };
  for (;;) {
    const frame = state.frames.at(-1);
    if (!frame) return { rows: state.rows };
    if (frame.next >= frame.actions.length) {
      state.frames.pop();
      if (frame.kind === 'then' && frame.response) keep(-jsonChars(frame.response.value));
      if (frame.kind === 'err') return { rows: state.rows, error: frame.failure };
      continue;
    }
    const index = frame.next++;
    const action = frame.actions[index];
    const path = `${frame.path}[${index}]`;

    if (services.now() >= services.deadline) {
      const failure: ActionFailure = { code: 'TIMEOUT', message: 'The action would start after the 25-second budget of the consumption ran out.' };
      if (defer(state, index, { action, path, failure }, deps)) return { rows: state.rows, deferred: true };
      keep(record(state, path, action, { ok: false, failure }, 0));
      return { rows: state.rows, error: errorBody(action, path, failure) };
    }

    let step: { result: ActionResult; attempts: number };
    if (action.act === 'resp') {
      const answered = await respond(state, frame, action, deps);
      if (!('failure' in answered)) {
        keep(record(state, path, action, { ok: true, row: { sent: answered.row } }, 1));
        state.responded = true;
        const reply = { status: answered.status, body: answered.body };
        if (answered.resumeAt !== undefined) return { rows: state.rows, respond: reply, continuation: { state, resumeAt: answered.resumeAt } };
        // The run ends here; inside an err chain it still fails with the failure being handled.
        return { rows: state.rows, respond: reply, ...(frame.failure ? { error: frame.failure } : {}) };
      }
      step = { result: answered, attempts: 1 };
    } else if (action.act === 'cond') {
      step = { result: checkCond(state, frame, action), attempts: 1 };
    } else {
      step = await runModule(state, frame, action, path, deps);
    }

    const { result, attempts } = step;
    if (!result.ok && defer(state, index, { action, path, failure: result.failure, ...(result.row ? { row: result.row } : {}) }, deps)) {
      return { rows: state.rows, deferred: true };
    }
    keep(record(state, path, action, result, attempts));
    if (result.ok) {
      const then = action.exe.actions;
      if (then?.length) {
        const answer = keptAnswer(thenResponse(state, action, result.answer));
        keep(answer.chars);
        state.frames.push({
          kind: 'then',
          path: `${path}.exe.actions`,
          actions: then,
          next: 0,
          inThen: true,
          response: { value: answer.value },
          ...(frame.error ? { error: frame.error } : {}),
          ...(frame.failure ? { failure: frame.failure } : {}),
        });
      }
      deps.onProgress?.(state);
      continue;
    }
    const ended = fail(state, frame, action, path, result.failure);
    deps.onProgress?.(state);
    if (ended) return ended;
  }
}

/** Leaves a failure to a later attempt when the schedule takes it: the frame (the top one) goes back to the failed action. */
function defer(state: RunState, index: number, failed: FailedAction, deps: RunnerDeps): boolean {
  const frame = state.frames.at(-1);
  if (!frame || !deps.deferFailure || frame.kind === 'err' || frame.failure) return false;
  const stateAt = () => {
    const copy = structuredClone(state);
    (copy.frames.at(-1) as RunFrame).next = index;
    return copy;
  };
  if (!deps.deferFailure({ ...failed, stateAt })) return false;
  frame.next = index;
  return true;
}

const scopeOf = (state: RunState, frame: RunFrame): TemplateScope => ({
  ctx: state.ctx,
  ...(frame.response ? { response: frame.response } : {}),
  ...(frame.error ? { error: frame.error } : {}),
});

function errorBody(action: TicketAction, path: string, failure: ActionFailure): ErrorBody {
  return {
    code: failure.code,
    message: failure.message,
    stage: 'action',
    action: { act: action.act, path },
    ...(failure.detail ? { detail: failure.detail } : {}),
  };
}

/**
 * Starts the action's err chain, or ends the run with this failure. The run fails with the latest
 * failure: an err chain that fails itself is reported at its own place (e.g. actions[1].err[0]).
 */
function fail(state: RunState, frame: RunFrame, action: TicketAction, path: string, failure: ActionFailure): RunOutcome | undefined {
  const body = errorBody(action, path, failure);
  if (!action.err?.length) return { rows: state.rows, error: body };
  state.frames.push({
    kind: 'err',
    path: `${path}.err`,
    actions: action.err,
    next: 0,
    inThen: frame.inThen,
    ...(frame.response ? { response: frame.response } : {}),
    error: { code: failure.code, message: failure.message, detail: failure.detail ?? {}, action: action.act, path },
    failure: body,
  });
  return undefined;
}

/** One action row: what the module reported it sent and received, the error, the tries made. Answers its size kept. */
function record(state: RunState, path: string, action: TicketAction, result: ActionResult, attempts: number): number {
  const detail: Record<string, unknown> = { ...(result.row ?? {}) };
  if (result.ok && result.answer !== undefined && !Object.hasOwn(detail, 'received')) detail.received = result.answer;
  if (!result.ok) {
    const { code, message, detail: errorDetail } = result.failure;
    detail.error = { code, message, ...(errorDetail ? { detail: errorDetail } : {}) };
  }
  detail.attempts = attempts;
  if (attempts > 1) detail.retried = true;
  // Cut as the log keeps it now, not when the run ends: a run of 50 actions never holds 50 whole answers.
  const row = { seq: state.nextSeq++, path, act: action.act, detail: fitForLog(detail) };
  state.rows.push(row);
  return jsonChars(row) + 1;
}

const asFailure = (err: unknown): ActionResult => {
  if (err instanceof ActionError) return { ok: false, failure: err.toFailure() };
  console.error('action crashed', err instanceof Error ? err.message : String(err));
  return { ok: false, failure: { code: 'INTERNAL_ERROR', message: 'The action failed unexpectedly.' } };
};

async function runModule(
  state: RunState,
  frame: RunFrame,
  action: TicketAction,
  path: string,
  deps: RunnerDeps,
): Promise<{ result: ActionResult; attempts: number }> {
  const module = (deps.modules ?? ACTION_MODULES)[action.act];
  if (!module) {
    const message = `The ${action.act} action cannot run in this version of the service.`;
    return { result: { ok: false, failure: { code: 'INTERNAL_ERROR', message } }, attempts: 1 };
  }
  const { services } = deps;
  const scope = scopeOf(state, frame);
  const run: ActionRun = { action, exe: action.exe, render: (value, options) => renderValue(value, scope, options), ctx: state.ctx, services, path };
  const attempt = async () => {
    const running = (async () => {
      try {
        return await module.run(run);
      } catch (err) {
        return asFailure(err);
      }
    })();
    return withinDeadline(running, services.deadline, services.now());
  };
  return runWithRetry(
    attempt,
    { enabled: action.retry === true && !frame.inThen, deadline: services.deadline },
    { now: () => services.now(), sleep: deps.sleep ?? realSleep },
  );
}

/** cond: the rows against the Then chain's answer; a pass updates the answer and the placeholders. */
function checkCond(state: RunState, frame: RunFrame, action: TicketAction): ActionResult {
  if (!frame.response) return { ok: false, failure: { code: 'INTERNAL_ERROR', message: 'A cond action can only run in a Then chain.' } };
  const scope = scopeOf(state, frame);
  try {
    const rules = state.legacy ? 'legacy' : 'current';
    const pass = checkAnswer((action.exe.response ?? []) as ConditionRow[], frame.response.value, (value) => renderValue(value, scope), rules);
    frame.response = { value: pass.answer };
    state.ctx = { ...state.ctx, placeholders: { ...state.ctx.placeholders, ...pass.placeholders } };
    return { ok: true, row: { received: { placeholders: pass.placeholders } } };
  } catch (err) {
    return asFailure(err);
  }
}

type Answered =
  | { status: number; body: unknown; resumeAt?: number; row: Record<string, unknown> }
  | { ok: false; failure: ActionFailure; row?: Record<string, unknown> };

const hasRest = (state: RunState) => state.frames.some((frame) => frame.next < frame.actions.length);

/** resp: templated status, body and resume; one per run; a run that goes on is metered first. */
async function respond(state: RunState, frame: RunFrame, action: TicketAction, deps: RunnerDeps): Promise<Answered> {
  if (state.responded) {
    return { ok: false, failure: { code: 'ALREADY_RESPONDED', message: 'The caller was already answered by a resp action of this run.' } };
  }
  const scope = scopeOf(state, frame);
  const { exe } = action;
  let answer: { status: number; body: unknown; resume: ReturnType<typeof respResume> };
  try {
    const status = renderValue(exe.status ?? 200, scope);
    const body = renderValue(exe.body, scope);
    const resume = renderValue(exe.resume ?? 'stop', scope);
    answer = { status: respStatus(status), body: respBody(body, state.receipt), resume: respResume(resume, deps.services.now()) };
  } catch (err) {
    return asFailure(err) as Answered;
  }
  const row = { status: answer.status, body: answer.body, resume: exe.resume ?? 'stop' };
  if (answer.resume.stop || !hasRest(state)) return { status: answer.status, body: answer.body, row };
  if (deps.meterQueuedRun && !(await deps.meterQueuedRun())) {
    return {
      ok: false,
      failure: { code: 'QUOTA_EXCEEDED', message: "The project's monthly quota of queued ticket runs is used up." },
      row: { sent: row },
    };
  }
  return { status: answer.status, body: answer.body, resumeAt: answer.resume.at, row };
}
