/**
 * What a caller's object sends to D1's forward history (its outbox of changes, exported in batches): the
 * changes in order, in as few statements as they allow, since each statement is one of the export
 * invocation's D1 queries (50 on the Free plan).
 */
import type { HistoryDb, HistoryStatement } from './history-db';
import type { RequestAddress } from '../../schemas/forward-rules';
import { historyDeleteAll, historyUpsertAll, placeBodies, type HistoryEntry, type HistoryOwner } from './history';
import { addressOfRecord } from './owner-history';
import type { ForwardRecord } from './record';

export type HistoryChange = { op: 'put'; owner: HistoryOwner; record: ForwardRecord } | { op: 'delete'; owner: HistoryOwner; address: RequestAddress };

/**
 * Puts and deletes gather into as few statements as their size allows (deletes into one), until a change
 * meets a request the other kind holds; bodies too large for a D1 row are put in R2 first (placeBodies).
 */
export async function historyChangeStatements(db: HistoryDb, bodies: R2Bucket, changes: readonly HistoryChange[]): Promise<HistoryStatement[]> {
  const statements: HistoryStatement[] = [];
  let puts: HistoryEntry[] = [];
  let deletes: { owner: HistoryOwner; address: RequestAddress }[] = [];
  const keys = { put: new Set<string>(), delete: new Set<string>() };
  const keyOf = (owner: HistoryOwner, address: RequestAddress) => JSON.stringify([owner.serviceId, owner.callerKey, address.method, address.url, address.id]);
  const flush = async () => {
    statements.push(...historyUpsertAll(db, await placeBodies(bodies, puts)), ...(deletes.length > 0 ? [historyDeleteAll(db, deletes)] : []));
    puts = [];
    deletes = [];
    keys.put.clear();
    keys.delete.clear();
  };
  for (const change of changes) {
    const op = change.op;
    const key = keyOf(change.owner, change.op === 'put' ? addressOfRecord(change.record) : change.address);
    if (keys[op === 'put' ? 'delete' : 'put'].has(key)) await flush();
    keys[op].add(key);
    if (change.op === 'put') puts.push({ owner: change.owner, record: change.record });
    else deletes.push({ owner: change.owner, address: change.address });
  }
  await flush();
  return statements;
}
