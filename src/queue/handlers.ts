import type { Env, WorkMessage } from '../env';

/** A consumer of one kind of work message; must be idempotent (delivery is at least once). */
export type WorkHandler = (message: WorkMessage, env: Env) => Promise<void>;

/** Work message kinds and their consumers. Add one line per kind. */
export const WORK_HANDLERS: Record<string, WorkHandler> = {};
