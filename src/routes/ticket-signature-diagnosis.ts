import { z } from 'zod';
import { createRouter } from '../app';
import { diagnoseSignature, matchingPresets } from '../engine/signature-diagnosis';
import type { SignedRequest } from '../engine/signature';
import { SvcHttpError, invalidParameter } from '../wire/errors';
import { PROJECT_PATH, guard } from '../http/guards';
import { MAX_KEPT_BODY_BYTES, keptBodyBytes, keptUrl } from '../ticket-log/kept-request';
import { loadSecretKey } from '../platform/secrets';
import { directoryEntry } from '../platform/ticket-directory';
import { logScope } from './ticket-log-source';
import { consumeIdOf, ticketIdOf } from './ticket-params';
import { ticketStub } from '../platform/object-stubs';
import * as answer from '../../schemas/answers';
import { ok } from '../openapi/route-parts';
import { readBody, route } from '../openapi/route';

const owner = guard('owner', 'Only the project owner can diagnose a consumption.');
const cannot = (message: string) => new SvcHttpError('INVALID_REQUEST', message, { status: 400 });

export const signatureDiagnosisBody = z.strictObject({
  secretName: z
    .string()
    .min(1)
    .max(128)
    .optional()
    .describe("The Secret Key to check with and to infer the preset with; default: the one the ticket's signature names."),
});

/**
 * "Why did my signature fail?": a logged consumption's kept request checked again against the
 * ticket's signature as it arrived (which header was read, the items and captures found, the
 * timestamp's age, the signed bytes' length and SHA-256), and which presets verify it with the key.
 * Never the secret, the expected signature or the one the request carried.
 */
export const signatureDiagnosisRoutes = createRouter();

const diagnoseConsumptionSignatureRoute = route({
  operationId: 'diagnoseConsumptionSignature',
  tag: 'tickets',
  guard: owner,
  notFound: true,
  body: signatureDiagnosisBody,
  bodyOptional: true,
  summary:
    "Why did the signature fail? A logged consumption's request checked again against the ticket's signature as at its arrival: the header read, items and captures, the timestamp's age, the signed bytes' length and SHA-256; and which presets verify it with the Secret Key. Never a secret or a signature.",
  success: ok('The diagnosis.', answer.signatureDiagnosisAnswer),
});

signatureDiagnosisRoutes.post(`${PROJECT_PATH}/tickets/:ticket_id/log/:consume_id/signature`, ...diagnoseConsumptionSignatureRoute.middleware, async (c) => {
  const project = c.get('project');
  const ticketId = ticketIdOf(c.req.param('ticket_id'));
  const consumeId = consumeIdOf(c.req.param('consume_id'));
  const { secretName: asked } = await readBody(c, diagnoseConsumptionSignatureRoute);

  const kept = await ticketStub(c.env, project.service_id, ticketId).keptRequest(logScope(project, ticketId), consumeId);
  if (kept === undefined) throw new SvcHttpError('NOT_FOUND', 'The log of this ticket has no consumption with this consume_id.', { status: 404 });
  if (kept === null) throw cannot('This consumption was logged before requests were kept: it cannot be diagnosed.');
  const body = keptBodyBytes(kept.body);
  if (!body) throw cannot(`Its body was over ${MAX_KEPT_BODY_BYTES} bytes and was not kept: it cannot be diagnosed.`);

  const config = (await directoryEntry(c.env, project.service_id, ticketId))?.condition?.signature;
  const secretName = asked ?? config?.secretName;
  if (secretName === undefined)
    throw invalidParameter('secretName: the ticket has no signature condition; name the Secret Key to infer the preset with.', { field: 'secretName' });
  const secret = await loadSecretKey(c.env, project.service_id, secretName);
  if (!secret) throw invalidParameter(`secretName: no Secret Key named "${secretName}" in this project`, { field: 'secretName' });

  const request: SignedRequest = { rawBody: body, method: kept.method, headers: kept.headers, ...(kept.url !== undefined ? { url: keptUrl(kept) } : {}) };
  const at = kept.received_at;
  const signature = config ? await diagnoseSignature({ ...config, secretName }, request, secret.value, at) : null;
  const matching = await matchingPresets(request, secret.value, at, config?.public_url);
  return c.json({
    ticket_id: ticketId,
    consume_id: consumeId,
    received_at: at,
    url_kept: kept.url !== undefined,
    signature,
    presets: { secretName, matching },
  });
});
