/** What a run of the action chain sees: the consumption's references (spec 2.5). Structured-clonable. */
export interface ActionContext {
  body: unknown;
  params: Record<string, unknown>;
  headers: Record<string, string>;
  placeholders: Record<string, unknown>;
  ip: string;
  user_agent: string;
  method: string;
  user?: Record<string, unknown>;
  record_access?: string;
  ticket: { id: string; service: string; owner: string; consume_id: string; timestamp: number; hash: string };
}

/** What ${error} reads in an err chain: the failure the chain handles. */
export interface ErrorValue {
  code: string;
  message: string;
  /** The code's detail; {} when the code has none. */
  detail: Record<string, unknown>;
  /** The kind of the failed action, e.g. 'req'. */
  action: string;
  /** The failed action's place, e.g. actions[1]. */
  path: string;
}
