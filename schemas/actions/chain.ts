/**
 * Walks a ticket's action chains: counts actions, places cond, and sets the template context each
 * exe is checked in (${response} in a Then chain and below, ${error} in an err chain and below).
 */
import { MAX_ACTIONS_PER_TICKET } from '../limits';
import type { ExistenceCheck } from '../lookups';
import { childPath, invalidField } from '../paths';
import type { TicketAction } from '../ticket-types';
import { normalizeAcsg, normalizeAcsr } from './access';
import { normalizeCond } from './cond';
import { normalizeMail, normalizeNlsd } from './messaging';
import { normalizePstr } from './pstr';
import { normalizeReq } from './req';
import { normalizeResp } from './resp';
import type { AcsgExe, AcsrExe, ActionInput, CondExe, MailExe, NlsdExe, PstrExe, ReqExe, RespExe } from './schema';
import type { ExeScope } from './scope';

interface ChainPlace {
  inThen: boolean;
  inErr: boolean;
  /** The list is itself a Then chain (exe.actions): the only place a cond may stand. */
  isThenChain: boolean;
}

/** Every action of the list, its Then chains and its err chains. */
function countActions(actions: readonly ActionInput[]): number {
  return actions.reduce((total, action) => {
    const then = (action.exe.actions as ActionInput[] | undefined) ?? [];
    return total + 1 + countActions(then) + countActions(action.err ?? []);
  }, 0);
}

// The schema's discriminated union has already matched each exe to its kind.
function normalizeExe(action: ActionInput, scope: ExeScope, path: string): Record<string, unknown> {
  const exe = action.exe;
  switch (action.act) {
    case 'acsg':
      return normalizeAcsg(exe as AcsgExe, scope, path);
    case 'acsr':
      return normalizeAcsr(exe as AcsrExe, scope, path);
    case 'pstr':
      return normalizePstr(exe as PstrExe, scope, path);
    case 'req':
      return normalizeReq(exe as ReqExe, scope, path);
    case 'mail':
      return normalizeMail(exe as MailExe, scope, path);
    case 'nlsd':
      return normalizeNlsd(exe as NlsdExe, scope, path);
    case 'resp':
      return normalizeResp(exe as RespExe, scope, path);
    case 'cond':
      return normalizeCond(exe as CondExe, scope, path);
  }
}

function normalizeChain(actions: readonly ActionInput[], place: ChainPlace, path: string, run: { now: number; checks: ExistenceCheck[] }): TicketAction[] {
  return actions.map((action, i) => {
    const actionPath = childPath(path, i);
    if (action.act === 'cond' && !place.isThenChain) {
      throw invalidField(
        childPath(actionPath, 'act'),
        'a cond action can only stand directly in a Then chain (exe.actions of acsg, acsr, pstr, req, mail or nlsd)',
      );
    }
    const exePath = childPath(actionPath, 'exe');
    const scope: ExeScope = { tpl: { inThen: place.inThen, inErr: place.inErr, allowClientSecret: false }, ...run };
    const stored: TicketAction = { act: action.act, exe: normalizeExe(action, scope, exePath) };

    const then = action.exe.actions as ActionInput[] | undefined;
    if (then?.length) {
      stored.exe.actions = normalizeChain(then, { inThen: true, inErr: place.inErr, isThenChain: true }, childPath(exePath, 'actions'), run);
    }
    if (action.err?.length) {
      stored.err = normalizeChain(action.err, { inThen: place.inThen, inErr: true, isThenChain: false }, childPath(actionPath, 'err'), run);
    }
    if (action.retry) stored.retry = true;
    return stored;
  });
}

/** Validates the ticket's top-level action list and returns the stored form. */
export function normalizeActions(actions: readonly ActionInput[], now: number, checks: ExistenceCheck[], path = 'actions'): TicketAction[] {
  const total = countActions(actions);
  if (total > MAX_ACTIONS_PER_TICKET) {
    throw invalidField(path, `at most ${MAX_ACTIONS_PER_TICKET} actions in total, nested ones included (this ticket has ${total})`);
  }
  return normalizeChain(actions, { inThen: false, inErr: false, isThenChain: false }, path, { now, checks });
}
