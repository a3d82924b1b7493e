/** A ticket's definition as the plan route answers it (stored, normalized form). */
export interface Definition {
  description: string;
  count: number | null;
  limit_per_user: false | number;
  time_to_live: number | null;
  condition: unknown;
  actions: unknown;
  /** Extension: the retry schedule of the run after resp (null = none); shown in the plan's diff like the rest. */
  retry_schedule?: unknown;
}

/** The answer of POST …/tickets/{id}/plan. */
export interface PlanAnswer {
  ticket_id: string;
  change: 'create' | 'update' | 'none';
  current: Definition | null;
  proposed: Definition;
}

export type PlanStep =
  | { change: 'create' | 'update' | 'none'; ticket_id: string; file: string; current: Definition | null; proposed: Definition }
  | { change: 'delete'; ticket_id: string; file: null; current: unknown; proposed: null };

/** The tickets on the server that no file names: what --prune deletes (in id order). */
export function pruned(serverIds: readonly string[], fileIds: readonly string[]): string[] {
  const named = new Set(fileIds);
  return [...new Set(serverIds)].filter((id) => !named.has(id)).sort();
}

export interface PlanCounts {
  create: number;
  update: number;
  none: number;
  delete: number;
}

export function countSteps(steps: readonly PlanStep[]): PlanCounts {
  const counts: PlanCounts = { create: 0, update: 0, none: 0, delete: 0 };
  for (const step of steps) counts[step.change]++;
  return counts;
}

/** Whether applying the plan would change anything. */
export const hasChanges = (steps: readonly PlanStep[]) => steps.some((step) => step.change !== 'none');

/** The plan as --json prints it: each step without the definitions of unchanged tickets. */
export function planJson(steps: readonly PlanStep[]) {
  return steps.map((step) => (step.change === 'none' ? { ticket_id: step.ticket_id, file: step.file, change: step.change } : step));
}
