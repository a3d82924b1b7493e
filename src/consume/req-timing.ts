/**
 * Times each `req` send of a run (issue 37, an extension): the action row gains `ms`, from the send to the
 * answer, and the ticket's metrics count it in the req latency sketch. A req that got no answer (refused
 * before sending, a network failure) has no time.
 */
import { ACTION_MODULES } from '../actions/registry';
import type { ActionModule } from '../actions/types';

type Modules = Partial<Record<string, ActionModule>>;

export function timedModules(onAnswer: (ms: number) => void, modules: Modules = ACTION_MODULES): Modules {
  const req = modules.req;
  if (!req) return modules;
  return {
    ...modules,
    req: {
      async run(run) {
        const started = Date.now();
        const result = await req.run(run);
        if (!result.row || !('received' in result.row)) return result;
        const ms = Date.now() - started;
        onAnswer(ms);
        return { ...result, row: { ...result.row, ms } };
      },
    },
  };
}
