import { z } from 'zod';
import { destinationTextProblem } from '../outbound/destinations';
import { FLOOD_PERIOD_SECONDS, MAX_STORAGE_QUOTA_BYTES, TICKET_CALLER_STEPS, TICKET_PROJECT_STEPS } from '../limits';
import { TICKET_ID_PATTERN } from '../../schemas/ticket';
import { DEV_ISSUER_PREFIX, RESERVED_CLAIMS } from './claims';

/**
 * Bodies of the operator and owner routes. Strict objects (unknown fields refused), no transforms,
 * so that z.toJSONSchema can describe every one of them in the OpenAPI document.
 */

/** Names of secret keys, mail templates, newsletter messages and named newsletter groups. */
export const RESOURCE_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
const MAX_SECRET_VALUE = 4096;
const MAX_SUBJECT = 998;
const MAX_MAIL_BODY = 262_144;
const MAX_DESTINATIONS = 100;

const PlanSchema = z.enum(['free', 'standard', 'premium']);

export const CreateProjectBody = z.strictObject({
  name: z.string().max(100).optional(),
  plan: PlanSchema.optional(),
});
export type CreateProjectBody = z.infer<typeof CreateProjectBody>;

// A URL holds no whitespace, control characters (NUL included) or invisible format characters (U+202E, U+200B…).
const httpsUrl = z
  .string()
  .max(2048)
  .regex(/^https:\/\/[^\s\p{Cc}\p{Cf}/?#]+([/?#][^\s\p{Cc}\p{Cf}]*)?$/u, 'must be an https:// URL');

/**
 * Destinations (the URLs a key may be sent to, src/outbound/destinations.ts): a Secret Key's and the
 * secureRequest key's are one rule, so both refuse the same texts with the same messages.
 */
const destinationList = z
  .array(
    z
      .string()
      .max(2048)
      .regex(/^https?:\/\/[^\s\p{Cc}\p{Cf}]+$/u, 'must start with http:// or https:// and hold no whitespace or control characters')
      .superRefine((text, ctx) => {
        const problem = destinationTextProblem(text);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      }),
  )
  .max(MAX_DESTINATIONS);

const IdentitySettingsBody = z.strictObject({
  issuer: z
    .string()
    .min(1)
    .max(512)
    .refine((issuer) => !issuer.startsWith(DEV_ISSUER_PREFIX), `must not start with "${DEV_ISSUER_PREFIX}" (reserved for the built-in issuer)`),
  audience: z.string().min(1).max(512),
  jwks_url: httpsUrl,
});

/** One step of a flood-control ladder (src/limits.ts): requests every FLOOD_PERIOD_SECONDS. */
const floodStep = (steps: readonly number[]) =>
  z.int().refine((figure) => steps.includes(figure), `must be one of ${steps.join(', ')} (requests every ${FLOOD_PERIOD_SECONDS} seconds)`);
const MAX_FLOOD_TICKETS = 100;

const floodLimitsBody = z
  .strictObject({
    per_caller_per_ticket: floodStep(TICKET_CALLER_STEPS).optional().describe('Consumptions and dry runs of one ticket from one address.'),
    per_project: floodStep(TICKET_PROJECT_STEPS).optional().describe("Consumptions and dry runs of all the project's tickets, from every address together."),
    tickets: z
      .record(z.string().regex(TICKET_ID_PATTERN, 'must be a ticket id'), floodStep(TICKET_CALLER_STEPS))
      .refine((tickets) => Object.keys(tickets).length <= MAX_FLOOD_TICKETS, `must name at most ${MAX_FLOOD_TICKETS} tickets`)
      .optional()
      .describe('Per ticket id, a per_caller_per_ticket of its own.'),
  })
  .nullable()
  .optional()
  .describe(
    `The consume routes' flood limits, steps of requests every ${FLOOD_PERIOD_SECONDS} seconds (docs/limits.md). The object replaces the stored one: a field left out, or null for all, is its default.`,
  );

export const UpdateProjectBody = z.strictObject({
  name: z.string().max(100).optional(),
  active: z.boolean().optional(),
  plan: PlanSchema.optional(),
  identity: IdentitySettingsBody.nullable().optional(),
  secure_request_key: z.string().min(1).max(MAX_SECRET_VALUE).nullable().optional(),
  secure_request_destinations: destinationList
    .nullable()
    .optional()
    .describe(
      "Where secureRequest may send: every url of a call must match one, as a Secret Key's Destinations match (at most 100). null or [] clears the list: any public url.",
    ),
  storage_quota_bytes: z
    .int('must be a whole number of bytes')
    .min(0, 'must be 0 or more bytes')
    .max(MAX_STORAGE_QUOTA_BYTES, `must be at most ${MAX_STORAGE_QUOTA_BYTES} bytes`)
    .nullable()
    .optional()
    .describe("The project's storage quota in bytes (its tickets' logs), instead of its plan's; null goes back to the plan's (docs/api.md, Storage quota)."),
  flood_limits: floodLimitsBody,
});
export type UpdateProjectBody = z.infer<typeof UpdateProjectBody>;

/** What the owner changes of its own project: UpdateProjectBody without plan and active (billing and suspension stay the operator's). */
export const OwnerSettingsBody = UpdateProjectBody.pick({
  name: true,
  identity: true,
  secure_request_key: true,
  secure_request_destinations: true,
  flood_limits: true,
});
export type OwnerSettingsBody = z.infer<typeof OwnerSettingsBody>;

/** Fields of UpdateProjectBody the owner settings refuse with a message of their own (the operator changes them). */
export const OPERATOR_ONLY_PROJECT_FIELDS = ['plan', 'active'] as const;

/** The first operator-only field a parsed body holds, if it is an object holding one. */
export function operatorOnlyFieldOf(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  return OPERATOR_ONLY_PROJECT_FIELDS.find((field) => Object.hasOwn(body, field));
}

// email has its own field; the reserved claims are stripped from attributes anyway.
const reservedClaimAlternatives = [...RESERVED_CLAIMS, 'email'].join('|');
const attributeKey = z
  .string()
  .regex(new RegExp(`^(?!(?:${reservedClaimAlternatives})$)[A-Za-z0-9_-]{1,64}$`), 'must be 1 to 64 letters, digits, _ or - and not a reserved claim name');

export const DevUserBody = z.strictObject({
  email: z.email().max(254).optional(),
  attributes: z
    .record(attributeKey, z.json())
    .refine((attributes) => JSON.stringify(attributes).length <= 8192, 'must be at most 8192 characters as JSON')
    .optional(),
  access_group: z.int().min(1).max(99).optional(),
  user_id: z.uuid().optional(),
});
export type DevUserBody = z.infer<typeof DevUserBody>;

/** Abuse limits of a Secret Key in forwarding (beyond the seed): a call over one answers 429 and is not sent. */
const secretKeyLimits = z.strictObject({
  per_caller_per_minute: z.int().min(1).max(100_000).optional(),
  per_key_per_minute: z.int().min(1).max(1_000_000).optional(),
  queued_per_caller: z.int().min(1).max(10_000).optional(),
});
export type SecretKeyLimits = z.infer<typeof secretKeyLimits>;

export const SecretKeyBody = z.strictObject({
  value: z.string().min(1).max(MAX_SECRET_VALUE),
  destinations: destinationList.optional(),
  access_group: z.int().min(0).max(99).optional(),
  locked: z.boolean().optional(),
  limits: secretKeyLimits.optional(),
});
export type SecretKeyBody = z.infer<typeof SecretKeyBody>;

export const MailContentBody = z.strictObject({
  subject: z.string().min(1).max(MAX_SUBJECT),
  html: z.string().max(MAX_MAIL_BODY).optional(),
  text: z.string().max(MAX_MAIL_BODY).optional(),
});
export type MailContentBody = z.infer<typeof MailContentBody>;

export const MailTemplateBody = MailContentBody;
export const NewsletterBody = MailContentBody;
