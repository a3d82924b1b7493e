/**
 * Durable Object ids by name, kept per namespace for the isolate's life: `idFromName` hashes the name
 * (SHA-256) on every call, and a busy ticket is called by the same name request after request. An id
 * is a plain value, not tied to the request that made it; stubs are still made per request.
 */
const byNamespace = new WeakMap<object, Map<string, DurableObjectId>>();
/** Names kept per namespace; the map starts again when full. */
const IDS_KEPT = 10_000;

export function idFromNameOnce(namespace: Pick<DurableObjectNamespace, 'idFromName'>, name: string): DurableObjectId {
  let ids = byNamespace.get(namespace);
  if (!ids) byNamespace.set(namespace, (ids = new Map()));
  let id = ids.get(name);
  if (!id) {
    id = namespace.idFromName(name);
    if (ids.size >= IDS_KEPT) ids.clear();
    ids.set(name, id);
  }
  return id;
}
