/**
 * secureRequest's body (POST /v1/projects/{service_id}/secure-request): one request `{ url, data?, sync? }`
 * or an array of 1 to MAX_SECURE_ITEMS of them. The rules and answers are in secure-rules.ts.
 */
import * as z from 'zod';
import { parseOrRefuse } from './issues';
import { invalidField } from './paths';
import { itemCountRefusal, MAX_SECURE_ITEMS, secureUrlRefusal, type SecureRequestItem } from './secure-rules';
import { strictObject } from './strict';

export const secureItemSchema = strictObject(
  {
    url: z
      .string()
      .superRefine((url, ctx) => {
        const refusal = secureUrlRefusal(url);
        if (refusal) ctx.addIssue({ code: 'custom', message: refusal });
      })
      .describe(
        "The customer's API: an absolute http(s) url on a public address, matching one of the project's secure_request_destinations when it lists any.",
      ),
    // The body was parsed from JSON text, so its values are JSON already: not walked again here.
    data: z.unknown().optional().describe('Any JSON, sent as `data` (null when absent).'),
    sync: z.boolean().optional().describe('In an array: send this request only after the one before it has answered.'),
  },
  {},
);

/** The body as the OpenAPI document shows it; parseSecureRequest applies it with readable refusals. */
export const secureRequestSchema = z.union([secureItemSchema, z.array(secureItemSchema).min(1).max(MAX_SECURE_ITEMS)]);

/** A checked call: its requests, and whether the body was one request (answered by one answer) or an array. */
export interface SecureRequestCall {
  items: SecureRequestItem[];
  single: boolean;
}

const BODY_RULE = `must be a request { url, data?, sync? } or an array of 1 to ${MAX_SECURE_ITEMS} of them`;

/** Validates a call's body; throws FieldIssueError naming the field (`url`, `[3].url`, `body`). */
export function parseSecureRequest(input: unknown): SecureRequestCall {
  if (Array.isArray(input)) {
    const refusal = itemCountRefusal(input.length);
    if (refusal) throw invalidField('body', refusal);
    return { items: input.map((item, i) => parseOrRefuse(secureItemSchema, item, `[${i}]`)), single: false };
  }
  if (typeof input !== 'object' || input === null) throw invalidField('body', BODY_RULE);
  return { items: [parseOrRefuse(secureItemSchema, input)], single: true };
}
