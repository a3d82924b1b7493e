import type { TicketAction } from '../../schemas/ticket-types';
import type { Env } from '../env';
import type { ErrorCode } from '../http/errors';
import type { ActionContext } from './runner';

/** Why an action failed; the runner adds stage 'action' and action.path. */
export interface ActionFailure {
  code: ErrorCode;
  message: string;
  detail?: Record<string, unknown>;
}

/** Thrown by render() and by action modules for a failure the err chain should see. */
export class ActionError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly detail?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'ActionError';
  }
}

export interface RenderOptions {
  /** Applied to the text of each reference inserted into longer text (req url: percent-encoding). */
  encode?: (text: string) => string;
  /** Leave ${CLIENT_SECRET} as written, for the req module to substitute where it is allowed. */
  keepClientSecret?: boolean;
}

/** I/O available to action modules. */
export interface ActionServices {
  env: Env;
  serviceId: string;
  ownerId: string;
  plan: string;
  now(): number;
  /** ms since the epoch when the consumption's 25-second budget runs out. */
  deadline: number;
}

/** One run of one action. */
export interface ActionRun {
  action: TicketAction;
  /** exe as stored (not templated): the module renders what its kind templates, first thing. */
  exe: TicketAction['exe'];
  /** Templates every string in `value` at any depth (spec 2.5); throws ActionError on a reference that does not resolve. */
  render(value: unknown, options?: RenderOptions): unknown;
  ctx: ActionContext;
  services: ActionServices;
  /** The action's place, such as actions[1].err[0]. */
  path: string;
}

export type ActionResult =
  | { ok: true; answer?: unknown; row?: Record<string, unknown> }
  | { ok: false; failure: ActionFailure; row?: Record<string, unknown> };

/** One module per action kind (src/actions/<kind>.ts), registered in src/actions/registry.ts. */
export interface ActionModule {
  run(run: ActionRun): Promise<ActionResult>;
}
