/**
 * Whether a service id may name a project, answered without a D1 query per id: ids made since
 * migration 0019 carry a keyed check (service-ids.ts); the ids made before it are read once per
 * isolate (they are a fixed list: every project made since has a checked id).
 */
import type { Env } from '../env';
import { carriesCheck, SERVICE_ID_PATTERN } from './service-ids';

/** Rows per query of the list: 50,000 ids of 20 bytes is 1 MB, far below D1's result limit. */
const PAGE = 50_000;

let unchecked: Promise<ReadonlySet<string>> | undefined;

async function readUnchecked(env: Env): Promise<ReadonlySet<string>> {
  const ids = new Set<string>();
  for (let after = ''; ; ) {
    const { results } = await env.DB.prepare('SELECT service_id FROM projects WHERE id_checked = 0 AND service_id > ? ORDER BY service_id LIMIT ?')
      .bind(after, PAGE)
      .all<{ service_id: string }>();
    for (const row of results) ids.add(row.service_id);
    if (results.length < PAGE) return ids;
    after = results[results.length - 1].service_id;
  }
}

/** The ids made before the check, read once per isolate (a failed read is tried again by the next caller). */
function uncheckedIds(env: Env): Promise<ReadonlySet<string>> {
  unchecked ??= readUnchecked(env).catch((err: unknown) => {
    unchecked = undefined;
    throw err;
  });
  return unchecked;
}

/** False when no project can have this id; true does not mean one has. */
export async function serviceMayExist(env: Env, serviceId: string): Promise<boolean> {
  if (!SERVICE_ID_PATTERN.test(serviceId)) return false;
  if (await carriesCheck(env, serviceId)) return true;
  return (await uncheckedIds(env)).has(serviceId);
}
