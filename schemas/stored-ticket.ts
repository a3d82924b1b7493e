/**
 * The stored form of a ticket's condition and actions, as zod schemas: what registration produces after
 * validation and normalization (condition.ts, actions/), what the TicketDO runs and what the owner's
 * listing answers. Registration input may use older names (data rows, signature.secret, presets); the stored
 * form only ever has the current ones. The types of ticket-types.ts are generated from these schemas
 * (answer-types.generated.ts, `npm run answer-types`).
 */
import { z } from 'zod';
import { PUBLIC_KEY_ALGORITHMS, TOKEN_ALGORITHM } from './signature';
import { HANDSHAKES } from './signature-presets';
import { ACT_KINDS, OPERATORS } from './ticket-types';

const operator = z.enum(OPERATORS);
const scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);
const userScalar = z.union([z.string(), z.number(), z.boolean()]);

export const storedConditionRow = z
  .object({
    key: z.string(),
    operator: operator.optional(),
    value: z
      .union([scalar, z.array(scalar)])
      .optional()
      .describe('Absent on a match row = compares with undefined. Never templated in a ticket condition.'),
    setValueWhenMatch: z.unknown().optional(),
    placeholder: z.string().optional(),
  })
  .describe("A row of body, params (and of a cond action's response). Absent operator = capture-only row.");

export const storedMatchPart = z
  .object({ operator, value: z.union([z.string(), z.array(z.string())]) })
  .describe("ip and user_agent parts. A value of '', [] or null is stored as no part at all.");

export const storedHeaderRow = z.object({ key: z.string(), operator, value: z.union([z.string(), z.array(z.string())]) }).describe('A row of headers.');

export const storedUserRow = z.object({ key: z.string(), operator, value: z.union([userScalar, z.array(userScalar)]) }).describe('A row of user.');

export const storedSignature = z
  .object({
    secretName: z.string(),
    header: z.string().optional().describe('Required by spec 2.2.1; absent only when the extension `field` reads the signature from the body.'),
    algorithm: z
      .enum(['sha256', 'sha1', 'sha512', ...PUBLIC_KEY_ALGORITHMS, TOKEN_ALGORITHM])
      .describe("'token' (extension): the header's value is compared with the Secret Key itself (GitLab, Postmark)."),
    encoding: z.enum(['hex', 'base64', 'raw']).describe("'raw' (extension, with algorithm 'token' only): the value as written."),
    separator: z.string().optional(),
    parts: z.array(z.string()),
    signed: z.string(),
    timestamp: z.string().optional(),
    tolerance: z.number().optional().describe('Stored with timestamp only (default 300 s).'),
    secret_encoding: z.enum(['raw', 'base64', 'hex']),
    secret_prefix: z.string().optional(),
    field: z.string().optional().describe('Extension: a body field (dotted path) carrying the signature instead of a header (Mailgun).'),
    public_url: z
      .string()
      .optional()
      .describe('Extension: the URL the provider calls (scheme, host, path), when it is not the one received (proxy, custom domain).'),
    body_sha256: z.string().optional().describe("Extension: a template that, when it resolves, must equal the hex SHA-256 of the body (Twilio's bodySHA256)."),
  })
  .describe('The signature part with every default filled in at registration (spec 2.2.1; extensions in docs/signature-extensions.md).');

export const storedRequestCondition = z
  .object({ exe: z.record(z.string(), z.unknown()), rows: z.array(storedConditionRow) })
  .describe('The check-time request condition of a legacy ticket: a req exe (no Then chain) and rows on its answer.');

export const storedCondition = z
  .object({
    return200: z.boolean().optional(),
    method: z.enum(['GET', 'POST']).optional(),
    signature: storedSignature.optional(),
    ip: storedMatchPart.optional(),
    user_agent: storedMatchPart.optional(),
    headers: z.array(storedHeaderRow).optional(),
    body: z.array(storedConditionRow).optional(),
    params: z.array(storedConditionRow).optional(),
    user: z.array(storedUserRow).optional(),
    record_access: z.string().optional(),
    handshake: z.enum(HANDSHAKES).optional().describe('Extension (docs/signatures.md "Handshakes"): the provider handshake this ticket answers.'),
    request: storedRequestCondition.optional().describe('Legacy tickets only (spec 9.2): a request sent at check time whose answer the rows judge.'),
  })
  .describe('A ticket condition as stored: empty parts dropped, data stored as body, a preset expanded, defaults filled.');

export const storedAction = z
  .object({
    act: z.enum(ACT_KINDS),
    get exe() {
      return z
        .looseObject({ actions: z.array(storedAction).optional().describe('The Then chain, where the kind has one.') })
        .describe("The kind's fields as registered (each kind's exe: TicketAction).");
    },
    get err() {
      return z.array(storedAction).optional().describe('The Else chain.');
    },
    retry: z.boolean().optional(),
  })
  .describe('An action as stored: the registered action with its chains.');

export const storedIdempotency = z
  .object({ key: z.string(), window: z.string() })
  .describe('Extension (docs/api.md "Idempotent consumption"): the key reference and the window, its default filled in.');

export const storedRetrySchedule = z
  .object({
    delays: z.array(z.string()).describe("The waits between attempts ('5s', '1m', '24h'); the last repeats while attempts remain."),
    within: z.string().describe("No attempt starts later than this after the first ('3d'; at most '7d')."),
    attempts: z.int().describe('Attempts in all, the first included (at most 50).'),
    on: z
      .object({
        statuses: z.array(z.union([z.int(), z.literal('5xx')])).describe("Answer statuses that are retried; '5xx' = every 500 to 599."),
        network: z.boolean().describe('No answer (connection refused, DNS, TLS): retried.'),
        timeout: z.boolean().describe('The request ran past its time limit: retried.'),
      })
      .describe('Which failures are retried; any other failure ends the run at once.'),
  })
  .describe('Extension (docs/api.md "Retrying work after the answer"): the retry schedule of the run after resp, its defaults filled in.');
