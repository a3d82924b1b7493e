import { z } from 'zod';
import { createRouter } from '../app';
import { SIGNATURE_PRESETS } from '../../schemas/signature-presets';
import { matchingPresets } from '../engine/signature-diagnosis';
import { invalidParameter } from '../wire/errors';
import { PROJECT_PATH, guard } from '../http/guards';
import { loadSecretKey } from '../platform/secrets';
import * as answer from '../../schemas/answers';
import { ok } from '../openapi/route-parts';
import { readBody, route } from '../openapi/route';

const owner = guard('owner', 'Only the project owner can match a request to the signature presets.');
/** A header name as HTTP allows it (RFC 9110 token), and a value without a line break. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HEADER_VALUE = /^[^\r\n\0]*$/;

/** A request captured elsewhere (a provider's delivery log, a request bin) and the Secret Key to try. */
export const presetMatchBody = z.strictObject({
  secretName: z.string().min(1).max(128).describe('The Secret Key holding the secret (or public key) the provider signs with.'),
  method: z.enum(['GET', 'POST']).optional().describe('Default POST.'),
  url: z
    .url({ protocol: /^https?$/ })
    .max(2048)
    .optional()
    .describe('The URL the provider called, with its query (for the presets that sign it).'),
  headers: z
    .record(
      z.string().regex(HEADER_NAME, { error: 'not a header name' }),
      z.string().max(8192).regex(HEADER_VALUE, { error: 'a header value has no line break' }),
    )
    .describe('The headers as delivered (names case-insensitive).'),
  body: z.string().max(65_536).optional().describe('The raw body text, exactly as delivered.'),
  received_at: z.int().min(0).optional().describe('When it was delivered (ms since the epoch): timestamps are judged against it; default now.'),
});

/** Scheme inference from a captured request: which presets verify it with this Secret Key. */
export const presetMatchRoutes = createRouter();

const matchSignaturePresetsRoute = route({
  operationId: 'matchSignaturePresets',
  tag: 'tickets',
  guard: owner,
  body: presetMatchBody,
  summary: 'Which signature presets verify a captured request (headers, body, URL) with a Secret Key: scheme inference. Never a secret or a signature.',
  success: ok('The presets that verify it.', answer.presetMatchAnswer),
});

presetMatchRoutes.post(`${PROJECT_PATH}/signature-presets/match`, ...matchSignaturePresetsRoute.middleware, async (c) => {
  const project = c.get('project');
  const sample = await readBody(c, matchSignaturePresetsRoute);
  const secret = await loadSecretKey(c.env, project.service_id, sample.secretName);
  if (!secret) throw invalidParameter(`secretName: no Secret Key named "${sample.secretName}" in this project`, { field: 'secretName' });
  const headers = Object.fromEntries(Object.entries(sample.headers).map(([name, value]) => [name.toLowerCase(), value]));
  const request = {
    rawBody: new TextEncoder().encode(sample.body ?? ''),
    method: sample.method ?? 'POST',
    headers,
    ...(sample.url ? { url: sample.url } : {}),
  };
  const matching = await matchingPresets(request, secret.value, sample.received_at ?? Date.now());
  return c.json({ secretName: sample.secretName, matching, tried: SIGNATURE_PRESETS.length });
});
