/** Who forwards a request: the verified caller, reduced to what forwarding needs. */
import type { Caller } from '../platform/types';

export interface ForwardCaller {
  /**
   * The identity half of every request id: 'u:<user id>', 'o:<owner id>' or 'v:<hash>' for a visitor (a hash
   * of IP address and user agent, so neither is stored). It never travels to the client.
   */
  key: string;
  /** The signed-in user's id (x-svc-user); absent for a visitor and for the owner key. */
  userId?: string;
  signedIn: boolean;
  /** The user's access group; the owner passes every key's; a visitor has 0. */
  accessGroup: number;
}

/** Above every access group a key can ask for (1 to 99). */
const OWNER_ACCESS_GROUP = 100;

/** Visitor keys computed before: a browser sends many requests from one address. */
const visitorKeys = new Map<string, string>();
const MAX_VISITOR_KEYS = 10_000;

async function visitorHash(ip: string, userAgent: string): Promise<string> {
  const text = `${ip}\n${userAgent}`;
  const known = visitorKeys.get(text);
  if (known !== undefined) return known;
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  const hash = btoa(String.fromCharCode(...new Uint8Array(digest).subarray(0, 18)))
    .replace(/\+/g, '-')
    .replace(/\//g, '_');
  if (visitorKeys.size >= MAX_VISITOR_KEYS) visitorKeys.clear();
  visitorKeys.set(text, hash);
  return hash;
}

export async function forwardCaller(caller: Caller, ip: string, userAgent: string): Promise<ForwardCaller> {
  if (caller.kind === 'user') {
    return { key: `u:${caller.user.user_id}`, userId: caller.user.user_id, signedIn: true, accessGroup: caller.user.access_group };
  }
  if (caller.kind === 'owner') return { key: `o:${caller.owner_id}`, signedIn: true, accessGroup: OWNER_ACCESS_GROUP };
  return { key: `v:${await visitorHash(ip, userAgent)}`, signedIn: false, accessGroup: 0 };
}

/** The caller of an HTTP request: its verified identity, else a visitor by the request's IP address and user agent. */
export const callerOfRequest = (caller: Caller, headers: Headers): Promise<ForwardCaller> =>
  forwardCaller(caller, headers.get('cf-connecting-ip') ?? '0.0.0.0', headers.get('user-agent') ?? '');
