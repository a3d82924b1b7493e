import { ServiceError, failure } from './errors';

export type Query = Record<string, string | number | undefined>;

interface RequestOptions {
  query?: Query;
  body?: unknown;
}

/** A page of a listing: `{ list, startKey, endOfList }`. */
export interface Page<T> {
  list: T[];
  startKey?: string | null;
  endOfList?: boolean;
}

const TIMEOUT_MS = 30_000;

/** Why fetch failed, in a few words (ECONNREFUSED, ENOTFOUND, a timeout…). */
function reasonOf(err: unknown): string {
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) return `no answer within ${TIMEOUT_MS / 1000} s`;
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
}

/** The owner routes of one service, with the owner key as Bearer; the key never appears in an error. */
export class Api {
  constructor(
    readonly baseUrl: string,
    private readonly ownerKey: string,
  ) {}

  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const url = new URL(`${this.baseUrl}${path}`);
    for (const [name, value] of Object.entries(options.query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
    const headers: Record<string, string> = { authorization: `Bearer ${this.ownerKey}`, accept: 'application/json' };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    try {
      res = await fetch(url, {
        method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (err) {
      throw failure(`Could not reach ${this.baseUrl}: ${reasonOf(err)}.`);
    }
    const text = await res.text();
    let json: unknown;
    try {
      json = text === '' ? null : JSON.parse(text);
    } catch {
      throw failure(`${this.baseUrl} answered ${res.status} with a body that is not JSON: is it the service's base url?`);
    }
    if (!res.ok) {
      const body = json as { code?: unknown; message?: unknown; detail?: unknown } | null;
      if (typeof body?.code === 'string' && typeof body.message === 'string') throw new ServiceError(res.status, body.code, body.message, body.detail);
      throw failure(`${this.baseUrl} answered ${res.status} without an error body: is it the service's base url?`);
    }
    return json as T;
  }

  /** Every page of a listing, following startKey. */
  async all<T>(path: string, query: Query = {}): Promise<T[]> {
    const rows: T[] = [];
    let startKey: string | undefined;
    for (;;) {
      const page = await this.request<Page<T>>('GET', path, { query: { ...query, limit: query.limit ?? 100, startKey } });
      rows.push(...page.list);
      if (page.endOfList !== false || !page.startKey) return rows;
      startKey = page.startKey;
    }
  }
}

/** The paths of one project's owner routes. */
export const paths = (serviceId: string) => {
  const project = `/v1/projects/${encodeURIComponent(serviceId)}`;
  const ticket = (id: string) => `${project}/tickets/${encodeURIComponent(id)}`;
  return {
    tickets: `${project}/tickets`,
    ticket,
    plan: (id: string) => `${ticket(id)}/plan`,
    check: (id: string) => `${ticket(id)}/check`,
    flood: (id: string) => `${ticket(id)}/flood`,
    signature: (id: string, consumeId: string) => `${ticket(id)}/log/${encodeURIComponent(consumeId)}/signature`,
    secrets: `${project}/secrets`,
    secret: (name: string) => `${project}/secrets/${encodeURIComponent(name)}`,
    destinations: `${project}/destinations`,
    deadLetters: `${project}/forward/dead-letters`,
    ticketDeadLetters: (id: string) => `${ticket(id)}/dead-letters`,
    replays: (id: string) => `${ticket(id)}/replays`,
    metrics: `${project}/metrics`,
  };
};
