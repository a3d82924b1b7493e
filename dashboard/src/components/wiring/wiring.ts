/**
 * What a provider needs to call a ticket (docs/api.md, the consume routes): the URL of each route as
 * this page's origin serves it, which preset (if any) the ticket's signature is, and the body "Send a
 * test" starts from. Pure: the page's origin and the ticket are given.
 */
import { SIGNATURE_PRESETS, type SignaturePreset } from '../../../../schemas/signature-presets';
import { SAMPLE_EVENTS } from './sample-events';

export interface WiringUrl {
  /** Stable name of the route (the copy button's data-copy). */
  name: 'tp' | 'tg' | 'tpa' | 'check';
  method: string;
  url: string;
  use: string;
}

/** The consume routes of spec 4.1 for one ticket: /tp, /tg, /tpa and the dry run (/publ/check, which names the owner). */
export function wiringUrls(origin: string, serviceId: string, ownerId: string, ticketId: string): WiringUrl[] {
  const at = (prefix: string) => `${origin}/${prefix}/${encodeURIComponent(serviceId)}/${encodeURIComponent(ticketId)}`;
  return [
    { name: 'tp', method: 'POST', url: at('tp'), use: "The webhook URL to give a provider: the request's body (JSON or raw) and query are the data." },
    { name: 'tg', method: 'GET', url: at('tg'), use: 'For a sender that can only GET: the query string is the data.' },
    { name: 'tpa', method: 'POST', url: at('tpa'), use: "For a signed-in user of the project: send the user's id token as Authorization: Bearer." },
    {
      name: 'check',
      method: 'GET or POST',
      url: `${origin}/publ/check/${encodeURIComponent(serviceId)}/${encodeURIComponent(ownerId)}/${encodeURIComponent(ticketId)}`,
      use: 'Dry run: judges the whole condition (the signature too); runs no action and uses no count.',
    },
  ];
}

interface SignatureLike {
  header?: string;
  algorithm?: string;
  signed?: string;
  parts?: readonly string[];
  field?: string;
}

const same = (a: SignatureLike, b: SignatureLike) =>
  (a.header ?? '').toLowerCase() === (b.header ?? '').toLowerCase() &&
  (a.field ?? '') === (b.field ?? '') &&
  (a.algorithm ?? 'sha256') === (b.algorithm ?? 'sha256') &&
  (a.signed === undefined || b.signed === undefined || a.signed === b.signed) &&
  JSON.stringify(a.parts ?? null) === JSON.stringify(b.parts ?? null);

/** The preset a stored signature was made from (the stored ticket keeps the expansion, not the preset id), if any. */
export function presetOfSignature(signature: SignatureLike | undefined): SignaturePreset | undefined {
  if (!signature) return undefined;
  return SIGNATURE_PRESETS.find((preset) => preset.signature && same(preset.signature, signature));
}

/** The body "Send a test" starts from: the preset's sample event when there is one, else a small JSON object. */
export function sampleBody(preset: SignaturePreset | undefined, now: number): string {
  const sample = preset ? SAMPLE_EVENTS[preset.id]?.(now) : undefined;
  return JSON.stringify(sample ?? { event: 'test', sent_at: new Date(now).toISOString() }, null, 2);
}
