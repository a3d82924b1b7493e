import type { TicketAction } from '../../schemas/ticket-types';
import type { Env } from '../env';
import type { ActionFailure } from '../wire/errors';
import type { RenderOptions } from '../engine/template';
import type { ActionContext } from '../engine/context';

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

export type ActionResult = { ok: true; answer?: unknown; row?: Record<string, unknown> } | { ok: false; failure: ActionFailure; row?: Record<string, unknown> };

/** One row of a consumption's action log: what one action did, numbered across the run and its continuation. */
export interface ActionRow {
  seq: number;
  path: string;
  act: string;
  detail: Record<string, unknown>;
}

/** One module per action kind (src/actions/<kind>.ts), registered in src/actions/registry.ts. */
export interface ActionModule {
  run(run: ActionRun): Promise<ActionResult>;
}
