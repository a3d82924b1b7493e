import type { ForwardRecord } from '../../src/forward/record';
import type { QueuedPlan } from '../../src/forward/queue-store';

// The requests table stores its record and plan as JSON text; these are the one place they are read back.
export function recordOf(row: { record: string }): ForwardRecord {
  return JSON.parse(row.record);
}

export function planOf(row: { plan: string }): QueuedPlan {
  return JSON.parse(row.plan);
}
