import { describe, expect, it } from 'vitest';
import type { TicketCondition } from '../../schemas/ticket-types';
import type { RequestSnapshot } from '../engine/snapshot';
import { handshakeAnswer, replyToHandshake } from './handshake';
import type { RunOutcome } from './runner';

const post = (body: unknown, headers: Record<string, string> = {}) => ({ method: 'POST', headers, body }) as unknown as RequestSnapshot;
const zoom: TicketCondition = { signature: { secretName: 'zoom_secret' } } as TicketCondition;

describe('handshakes: a request is recognised as its provider handshake, then replied to', () => {
  it('recognises each provider handshake by its documented shape, and nothing else', () => {
    expect(handshakeAnswer('slack', post({ type: 'url_verification', challenge: 'c' }), '')).toEqual({ kind: 'json', body: { challenge: 'c' } });
    expect(handshakeAnswer('zoom', post({ event: 'endpoint.url_validation', payload: { plainToken: 'p-1' } }), '')).toEqual({
      kind: 'zoom',
      plainToken: 'p-1',
    });
    expect(handshakeAnswer('zoom', post({ event: 'endpoint.url_validation', payload: { plainToken: 'v0:1:{}' } }), '')).toBeUndefined();
    expect(handshakeAnswer('twitch', post({ challenge: 't' }, { 'twitch-eventsub-message-type': 'webhook_callback_verification' }), '')).toEqual({
      kind: 'text',
      body: 't',
    });
    expect(handshakeAnswer('discord', post({ type: 1 }), '')).toEqual({ kind: 'json', body: { type: 1 } });
    expect(handshakeAnswer('msgraph', post(undefined), '?validationToken=a%20b')).toEqual({ kind: 'text', body: 'a b' });
    expect(handshakeAnswer('slack', { ...post({ type: 'url_verification', challenge: 'c' }), method: 'GET' }, '')).toBeUndefined();
  });

  it('replies to JSON and text handshakes without running anything', async () => {
    const never = () => Promise.reject(new Error('no run'));
    expect(await replyToHandshake({ kind: 'json', body: { type: 1 } }, {} as TicketCondition, never)).toEqual({ ok: true, rows: [], body: { type: 1 } });
    expect(await replyToHandshake({ kind: 'text', body: 't' }, {} as TicketCondition, never)).toEqual({ ok: true, rows: [], body: 't', text: true });
  });

  it("replies to Zoom with the answer of the run of hsk and resp, keyed by the signature's Secret Key", async () => {
    const ran: unknown[] = [];
    const reply = await replyToHandshake({ kind: 'zoom', plainToken: 'p' }, zoom, async (actions) => {
      ran.push(...actions);
      return { rows: [], respond: { status: 200, body: { plainToken: 'p', encryptedToken: 'e' } } } satisfies RunOutcome;
    });
    expect(ran).toEqual([{ act: 'hsk', exe: { secretName: 'zoom_secret', plainToken: 'p', actions: [{ act: 'resp', exe: { body: '${response}' } }] } }]);
    expect(reply).toEqual({ ok: true, rows: [], body: { plainToken: 'p', encryptedToken: 'e' } });
  });

  it('a Zoom run that crashed or did not answer is an error of the action stage', async () => {
    const crashed = await replyToHandshake({ kind: 'zoom', plainToken: 'p' }, zoom, () => Promise.reject(new Error('boom')));
    expect(crashed).toMatchObject({ ok: false, error: { code: 'INTERNAL_ERROR', stage: 'action' } });
    const silent = await replyToHandshake({ kind: 'zoom', plainToken: 'p' }, zoom, async () => ({ rows: [] }));
    expect(silent).toEqual({ ok: false, rows: [], error: { code: 'INTERNAL_ERROR', message: 'The handshake was not answered.', stage: 'action' } });
  });
});
