/**
 * The stored form of a ticket: what registration produces after validation and normalization,
 * what the TicketDO runs and what getTickets returns to the owner. Registration input may use older
 * names (data rows, ${data}, signature.secret); the stored form only ever has the current ones.
 */
import type { Handshake } from './signature-presets';

export const OPERATORS = ['=', '!=', '>', '>=', '<', '<=', 'eq', 'ne', 'gt', 'gte', 'lt', 'lte'] as const;
export type Operator = (typeof OPERATORS)[number];

type Scalar = string | number | boolean | null;

/** A row of body, params (and of a cond action's response). Absent operator = capture-only row. */
export interface ConditionRow {
  key: string;
  operator?: Operator;
  /** Absent on a match row = compares with undefined. Never templated in a ticket condition. */
  value?: Scalar | Scalar[];
  setValueWhenMatch?: unknown;
  placeholder?: string;
}

/** ip and user_agent parts. A value of '', [] or null is stored as no part at all. */
export interface MatchPart {
  operator: Operator;
  value: string | string[];
}

export interface HeaderRow {
  key: string;
  operator: Operator;
  value: string | string[];
}

export interface UserRow {
  key: string;
  operator: Operator;
  value: string | number | boolean | (string | number | boolean)[];
}

/** signature part with every default filled in at registration. */
/** Beyond spec 2.2.1 (docs/signature-extensions.md): public-key signatures, the key held by the Secret Key. */
export type PublicKeyAlgorithm = 'ed25519' | 'ecdsa-p256-sha256' | 'rsa-sha256';

export interface SignatureConfig {
  secretName: string;
  /** Required by spec 2.2.1; absent only when the extension `field` reads the signature from the body. */
  header?: string;
  /** 'token' (extension): the header's value is compared with the Secret Key itself (GitLab, Postmark). */
  algorithm: 'sha256' | 'sha1' | 'sha512' | PublicKeyAlgorithm | 'token';
  /** 'raw' (extension, with algorithm 'token' only): the value as written. */
  encoding: 'hex' | 'base64' | 'raw';
  separator?: string;
  parts: string[];
  signed: string;
  timestamp?: string;
  /** Stored with timestamp only (default 300 s). */
  tolerance?: number;
  secret_encoding: 'raw' | 'base64' | 'hex';
  secret_prefix?: string;
  /** Extension: a body field (dotted path) carrying the signature instead of a header (Mailgun). */
  field?: string;
  /** Extension: the URL the provider calls (scheme, host, path), when it is not the one received (proxy, custom domain). */
  public_url?: string;
  /** Extension: a template that, when it resolves, must equal the hex SHA-256 of the body (Twilio's bodySHA256). */
  body_sha256?: string;
}

export interface TicketCondition {
  return200?: boolean;
  method?: 'GET' | 'POST';
  signature?: SignatureConfig;
  ip?: MatchPart;
  user_agent?: MatchPart;
  headers?: HeaderRow[];
  body?: ConditionRow[];
  params?: ConditionRow[];
  user?: UserRow[];
  record_access?: string;
  /** Extension (docs/signatures.md "Handshakes"): the provider handshake this ticket answers. */
  handshake?: Handshake;
  /** Legacy tickets only (spec 9.2): a request sent at check time whose answer the rows judge. */
  request?: RequestCondition;
}

/** The check-time request condition of a legacy ticket: a req exe (no Then chain) and rows on its answer. */
export interface RequestCondition {
  exe: Record<string, unknown>;
  rows: ConditionRow[];
}

export type ActKind = 'acsg' | 'acsr' | 'pstr' | 'req' | 'mail' | 'nlsd' | 'resp' | 'cond';

export interface TicketAction {
  act: ActKind;
  /** Kind-specific fields; `exe.actions` is the Then chain where the kind has one. */
  exe: Record<string, unknown> & { actions?: TicketAction[] };
  err?: TicketAction[];
  retry?: boolean;
}

export interface StoredTicket {
  ticket_id: string;
  description?: string;
  /** Count given at the last registration; the remaining count lives in the TicketDO. */
  count?: number | null;
  /** Effective per-user limit: a positive number, or absent = unlimited. */
  limit_per_user?: number;
  /** Absolute expiry in ms since the epoch; absent = never. */
  time_to_live?: number;
  condition: TicketCondition;
  actions: TicketAction[];
  /** Registered at (first registration), ms. */
  timestamp: number;
  /** Last registered, ms. */
  updated: number;
  /** 2 = a req action answers { status, headers, body }; absent on a legacy ticket saved before it (answers the body alone). */
  rules_version?: 2;
  /** Imported under the previous rules (spec 9.2): runs by them until registered again. */
  legacy?: true;
}
