/**
 * req: an HTTP request (spec 2.4 req details, ${CLIENT_SECRET}). The answer is the whole response
 * { status, headers, body }; a status of 300 or more fails the action with REQUEST_FAILED { status, body }.
 * Everything that leaves the service goes through src/outbound.
 */
import type { z } from 'zod';
import { reqExeSchema } from '../../schemas/actions/schema';
import type { ErrorCode } from '../wire/errors';
import { jsonDepth } from '../wire/json-depth';
import { MAX_JSON_DEPTH } from '../limits';
import { encodeBody } from '../outbound/body';
import { CLIENT_SECRET_TEXT, fillRequestSecret } from '../outbound/client-secret';
import { OutboundError } from '../outbound/errors';
import { checkDestination, sendOutbound, type OutboundEnv } from '../outbound/fetch';
import { buildHeaders, headerValueText } from '../outbound/headers';
import { HOP_HEADER, hopsOf } from '../outbound/hops';
import { appendParams, normalizeUrl, percentEncodeValue } from '../outbound/url';
import { loadSecretKey, type SecretKey } from '../platform/secrets';
import type { ActionModule, ActionResult, ActionRun } from './types';

/** exe of a req action as registration stores it (schemas/actions/req.ts), without its Then chain. */
const storedReqExeSchema = reqExeSchema.omit({ actions: true });
type StoredReqExe = z.infer<typeof storedReqExeSchema>;

/** The answer of a req action, and what its Then chain reads as ${response}. */
interface ReqAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** Refusals of the destination are ACTION_FORBIDDEN (nothing was sent); every other failure is REQUEST_FAILED. */
const FORBIDDEN_REASONS = new Set(['private_destination', 'destination_not_allowed']);

function failure(code: ErrorCode, message: string, detail: Record<string, unknown>, row: Record<string, unknown>): ActionResult {
  return { ok: false, failure: { code, message, detail }, row };
}

/** The answer's JSON, or its text when it is not JSON or nests deeper than a request body may. */
function parseBody(text: string): unknown {
  if (jsonDepth(text) > MAX_JSON_DEPTH) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const sendsBody = (method: string) => method === 'POST' || method === 'PUT';

/**
 * Templates url (inserted values percent-encoded), headers, data and params. With secretName,
 * ${CLIENT_SECRET} stays as that text until the key is loaded (and is what the action row shows).
 */
function renderExe(run: ActionRun, exe: StoredReqExe) {
  const keep = { keepClientSecret: exe.secretName !== undefined };
  return {
    url: run.render(exe.url, { encode: percentEncodeValue }),
    headers: (exe.headers === undefined ? {} : run.render(exe.headers, keep)) as Record<string, unknown>,
    data: exe.data === undefined ? undefined : run.render(exe.data, keep),
    params: (exe.params === undefined ? undefined : run.render(exe.params, keep)) as Record<string, unknown> | undefined,
  };
}

export const reqAction: ActionModule = {
  async run(run: ActionRun): Promise<ActionResult> {
    const { actions: _thenChain, ...stored } = run.exe;
    const exe = storedReqExeSchema.parse(stored);
    const method = exe.method ?? 'GET';
    const { services } = run;
    // A reference that does not resolve throws here, before anything is sent.
    const rendered = renderExe(run, exe);

    // What the action row shows: the secret as the text ${CLIENT_SECRET}, never its value.
    const sent: Record<string, unknown> = { method, url: rendered.url, headers: rendered.headers };
    if (rendered.params !== undefined) sent.params = rendered.params;
    if (rendered.data !== undefined && sendsBody(method)) sent.data = rendered.data;
    const row = (received?: ReqAnswer) => (received ? { sent, received } : { sent });

    let key: SecretKey | null = null;
    if (exe.secretName !== undefined) {
      key = await loadSecretKey(services.env, services.serviceId, exe.secretName);
      if (!key) {
        return failure(
          'REQUEST_FAILED',
          `The Secret Key "${exe.secretName}" no longer exists.`,
          { reason: 'secret_missing', secretName: exe.secretName },
          row(),
        );
      }
    }

    let answer: ReqAnswer;
    try {
      if (typeof rendered.url !== 'string') throw new OutboundError('invalid_url', 'The request URL is not text.');
      const url = normalizeUrl(rendered.url);
      sent.url = url.href;
      // The Destinations judge the url as the templates filled it: normalizing hides a `..` or a backslash.
      checkDestination(rendered.url, services.env as OutboundEnv, key?.destinations ?? []);
      const parts = { ...rendered, url: url.href };
      // The url is not a place ${CLIENT_SECRET} may stand in a req (registration refuses it there).
      const filled = key ? fillRequestSecret(parts, { secret: key.value, token: CLIENT_SECRET_TEXT, inUrl: false }) : parts;
      const headerTexts = Object.fromEntries(Object.entries(filled.headers).map(([name, value]) => [name, headerValueText(value)]));
      const headers = buildHeaders(headerTexts);
      headers.set('x-svc-ticket', `#${run.ctx.ticket.id}#${run.ctx.ticket.consume_id}`);
      let body: string | undefined;
      if (filled.data !== undefined && sendsBody(method)) {
        const encoded = encodeBody(filled.data, headers.get('content-type') ?? undefined);
        body = encoded.body;
        headers.set('content-type', encoded.contentType);
      }
      const response = await sendOutbound(
        { method, url: appendParams(url, filled.params).href, headers, body, hops: hopsOf(run.ctx.headers[HOP_HEADER]) },
        {
          env: services.env as OutboundEnv,
          deadline: services.deadline,
          now: () => services.now(),
          destinations: key?.destinations ?? [],
          secret: key?.value,
        },
      );
      answer = { status: response.status, headers: response.headers, body: parseBody(response.body) };
    } catch (error) {
      if (!(error instanceof OutboundError)) throw error;
      const code: ErrorCode = FORBIDDEN_REASONS.has(error.reason) ? 'ACTION_FORBIDDEN' : 'REQUEST_FAILED';
      const detail: Record<string, unknown> = { reason: error.reason, ...error.detail };
      if (error.reason === 'destination_not_allowed') detail.secretName = exe.secretName;
      return failure(code, error.message, detail, row());
    }

    if (answer.status >= 300) {
      return failure('REQUEST_FAILED', `The destination answered with status ${answer.status}.`, { status: answer.status, body: answer.body }, row(answer));
    }
    return { ok: true, answer, row: row(answer) };
  },
};
