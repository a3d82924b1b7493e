/**
 * This deployment's hop marker (issue 26 item 5): every outbound call (a ticket's req, a forwarded request,
 * secureRequest) says how many calls deep it is, one more than the request that caused it. The routes refuse
 * a request past MAX_HOPS (src/http/loops.ts), so a ticket or forward aimed at the gateway itself cannot
 * multiply itself. A value that is not a whole number is not this deployment's and counts as absent.
 */
export const HOP_HEADER = 'x-svc-hop';

/** How many calls deep a request arrived (0: not sent by this gateway). */
export function hopsOf(value: string | null | undefined): number {
  if (value === null || value === undefined || !/^\s*\d{1,6}\s*$/.test(value)) return 0;
  return Number(value);
}

/** Sets the marker of a call caused by a request that arrived `hops` deep, over any value a user wrote. */
export function markHop(headers: Headers, hops: number): void {
  headers.set(HOP_HEADER, String(hops + 1));
}
