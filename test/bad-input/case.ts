/** The shape of one bad-input case: a request that is wrong in one way, and the answer and trace it must get. */
import type { ErrorCode, Stage } from '../../src/wire/errors';
import type { World } from './world';

/**
 * A path parameter: fixed text (sent percent-encoded), text made from the world (e.g. a lookalike of
 * its service id), or `{ raw }` sent exactly as written (a broken percent escape).
 */
export type PathParam = string | ((world: World) => string) | { raw: string };

/** Path segments that are not valid percent-encoded UTF-8, each with the words a test name uses. */
export const BROKEN_ESCAPES: ReadonlyArray<readonly [PathParam, string]> = [
  [{ raw: '%E0%A4%A' }, 'a broken percent escape'],
  [{ raw: '%FF' }, 'a percent escape of a byte that is not UTF-8'],
  [{ raw: '%C0%AF' }, 'an overlong UTF-8 escape of /'],
];

/** Who the request claims to be. */
export type Credential =
  | 'none'
  | 'owner'
  | 'operator'
  | 'user'
  | 'admin'
  /** `Bearer` with nothing after it */
  | 'empty-bearer'
  /** an `ok_` key no project has */
  | 'wrong-owner-key'
  /** the owner key of another project */
  | 'other-owner'
  /** an id token of a user of another project */
  | 'other-user'
  /** text that is no token at all */
  | 'malformed'
  /** control characters (U+0001, U+007F) in the credential */
  | 'control-chars';

export interface Expected {
  status: number;
  /** Absent for a case that must succeed (input the route ignores). */
  code?: ErrorCode;
  /** Required on the consume routes, where every error carries stage; absent elsewhere. */
  stage?: Stage;
  /** The message must name this field path. */
  field?: string;
  /** detail must contain this. */
  detail?: Record<string, unknown>;
  /** detail.field must start with this, and the message must name detail.field. */
  fieldPrefix?: string;
  /** The message must equal (string) or match (RegExp) this. */
  message?: string | RegExp;
  /** The JSON answer must contain this (success cases). */
  json?: Record<string, unknown>;
}

/** What the case may leave behind: nothing, or exactly one failed consumption in the ticket's log. */
export type Trace = { logged: { ticket: string; code: ErrorCode; check?: boolean } };

export interface BadInputCase {
  /** What is wrong with the request, as the test name says it ("description over 500 characters"). */
  input: string;
  /** The route as the OpenAPI document writes it: 'PUT /v1/projects/{service_id}/secrets/{name}'. */
  route: string;
  /** Path parameters (unencoded), or how to make one from the world; {service_id} and {owner_id} default to the world's project. */
  params?: Record<string, PathParam>;
  /** The query string, without '?'. */
  query?: string;
  auth: Credential;
  headers?: Record<string, string>;
  /** Raw text is sent as is; `{ json }` is JSON-encoded. Both with content-type application/json. */
  body?: string | { json: unknown };
  expect: Expected;
  trace?: Trace;
}

/** The common part of a family's cases: route, parameters, credential. */
export type Target = Pick<BadInputCase, 'route' | 'params' | 'auth' | 'query' | 'headers'>;

/** An INVALID_PARAMETER answer naming `field`; `detailed` routes (the platform's body reader) also carry detail.field. */
export const invalidParameter = (field: string, detailed: boolean): Expected => ({
  status: 400,
  code: 'INVALID_PARAMETER',
  field,
  ...(detailed ? { detail: { field } } : {}),
});
