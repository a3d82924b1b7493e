import type { Env } from '../env';

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

/** The name of a ticket's Durable Object: one per project + ticket. */
export const ticketObjectName = (serviceId: string, ticketId: string): string => `${serviceId}/${ticketId}`;

/** A forwarding caller of a project: the owner of a ForwardQueueDO and a RealtimeDO. */
interface CallerOfProject {
  serviceId: string;
  callerKey: string;
}

/**
 * The stubs of the three objects, typed by the bindings (worker-configuration.d.ts): routes and objects
 * reach an object through here, without importing its module.
 */
export const ticketStub = (env: Env, serviceId: string, ticketId: string) =>
  env.TICKETS.get(idFromNameOnce(env.TICKETS, ticketObjectName(serviceId, ticketId)));

/** The ForwardQueueDO of one caller of one project. */
export const forwardQueueStub = (env: Env, owner: CallerOfProject) =>
  env.FORWARD_QUEUES.get(env.FORWARD_QUEUES.idFromName(`${owner.serviceId}/${owner.callerKey}`));

/** The realtime object of a project + caller. */
export const realtimeStub = (env: Env, owner: CallerOfProject) => env.REALTIME.get(env.REALTIME.idFromName(`${owner.serviceId}/${owner.callerKey}`));
