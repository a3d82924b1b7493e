/**
 * Pausing a failing destination, for a ticket's runs with a retry schedule (extension, docs/api.md "Pausing
 * a failing destination"): every `req` send of such a run tells its origin's circuit (outbound/circuit.ts)
 * how it went, and a run held for an open circuit until its schedule's window ended fails at that action
 * without sending. The TicketDO keeps the circuits; this wraps the req module the run uses.
 */
import { ACTION_MODULES } from '../actions/registry';
import { reqAction } from '../actions/req';
import type { ActionModule, ActionResult, ActionRun } from '../actions/types';
import { percentEncodeValue } from '../outbound/url';
import { verdictOf, type Verdict } from '../outbound/circuit';
import { originOf } from '../forward/destination-pause';
import type { ActionFailure } from '../wire/errors';

/** The origin a req's action row says it was sent to; undefined when nothing was sent there. */
export function sentOrigin(row: Record<string, unknown> | undefined): string | undefined {
  const url = (row?.sent as { url?: unknown } | undefined)?.url;
  return typeof url === 'string' ? originOf(url) : undefined;
}

/**
 * What a req's result tells of its destination: an answer by its status; no answer (unreachable) or past
 * its time limit fails; refused before sending (a destination not allowed, a bad url, a missing key) tells nothing.
 */
export function verdictOfReq(result: ActionResult): Verdict {
  if (result.ok) return 'success';
  const detail = result.failure.detail ?? {};
  if (typeof detail.status === 'number') return verdictOf(detail.status, false);
  return verdictOf(undefined, result.failure.code === 'REQUEST_FAILED' && (detail.reason === 'unreachable' || detail.reason === 'timeout'));
}

/** The failure of the action a run was held at when its schedule's window ended: nothing was sent. */
export function circuitOpenFailure(origin: string): ActionFailure {
  return {
    code: 'REQUEST_FAILED',
    message: "Not sent: the destination's circuit is open (it failed again and again) and the retry schedule's window ended while the run waited.",
    detail: { reason: 'circuit_open', origin },
  };
}

/** The failure of a req held for its origin's open circuit: nothing was sent; the run waits until `until` (the next probe). */
export function circuitHeldFailure(origin: string, until: number): ActionFailure {
  return {
    code: 'REQUEST_FAILED',
    message: "Not sent: the destination's circuit is open (it failed again and again); the run waits for its next probe.",
    detail: { reason: 'circuit_open', origin, held_until: until },
  };
}

/** The origin a req would send to, templated as the req templates it; undefined when it cannot tell (the req then fails on its own). */
function originToSend(run: ActionRun): string | undefined {
  try {
    const url = run.render(run.exe.url, { encode: percentEncodeValue });
    return typeof url === 'string' ? originOf(url) : undefined;
  } catch {
    return undefined;
  }
}

const inErrChain = (path: string) => path.includes('.err[');

export interface CircuitGate {
  /** Tells the origin's circuit how a send went (a neutral verdict still ends a probe). */
  tell(origin: string, verdict: Verdict): void;
  /** Before a send: 'go' (the circuit is closed, or this send is its probe), or the time its open circuit holds it until. */
  admit?(origin: string): 'go' | number;
  /** The action (by path) the run was held at past its window: it fails without sending. */
  heldAt?: { path: string; origin: string };
}

/** The modules of a scheduled run: its req sends as ever, then tells the destination's circuit. */
export function gatedModules(gate: CircuitGate): Partial<Record<string, ActionModule>> {
  return { ...ACTION_MODULES, req: gatedReq(reqAction, gate) };
}

function gatedReq(req: ActionModule, gate: CircuitGate): ActionModule {
  return {
    async run(run) {
      if (gate.heldAt?.path === run.path) return { ok: false, failure: circuitOpenFailure(gate.heldAt.origin) };
      // Any req of the run, its first attempt's included, waits while its origin's circuit is open; not in an
      // err chain, which runs once and cannot wait (its failure is not retried).
      const to = gate.admit && !inErrChain(run.path) ? originToSend(run) : undefined;
      const admission = to !== undefined && gate.admit ? gate.admit(to) : 'go';
      if (to !== undefined && typeof admission === 'number') return { ok: false, failure: circuitHeldFailure(to, admission) };
      const result = await req.run(run);
      const origin = sentOrigin(result.row);
      if (origin !== undefined) gate.tell(origin, verdictOfReq(result));
      return result;
    },
  };
}
