import type { ActKind } from '../../schemas/ticket-types';
import { acsg } from './acsg';
import { acsr } from './acsr';
import { HANDSHAKE_ACT, handshakeAction } from './handshake';
import { mailAction } from './mail';
import { nlsdAction } from './nlsd';
import { pstrAction } from './pstr';
import { reqAction } from './req';
import type { ActionModule } from './types';

/**
 * The module of each action kind, one line per kind. resp and cond are not modules: they steer the
 * run (answer the caller, check an answer) and the runner carries them out itself. A kind with no
 * entry fails with INTERNAL_ERROR when it runs.
 */
export const ACTION_MODULES: Partial<Record<ActKind | typeof HANDSHAKE_ACT, ActionModule>> = {
  acsg,
  acsr,
  pstr: pstrAction,
  mail: mailAction,
  nlsd: nlsdAction,
  req: reqAction,
  // Internal: answers a Zoom handshake; never registered by an owner.
  [HANDSHAKE_ACT]: handshakeAction,
};
