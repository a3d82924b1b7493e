/**
 * The hand-written baselines of the streaming scenarios: (s2) a pass-through route that returns the
 * destination's streamed answer as it comes, adding the key; (s3) a room of WebSockets on a bare
 * Broadcaster and a route that reads the same destination stream and broadcasts each read to it.
 */
import { Hono } from 'hono';
import type { Env } from './env';

export const streaming = new Hono<{ Bindings: Env }>();

/** The destination's stream with the bench's query (tag, pieces, gap), as the gateway would be sent it. */
const streamRequest = (env: Env, query: string) =>
  new Request(new URL(`/stream?${query}`, env.API_URL), { headers: { authorization: `Bearer ${env.API_KEY}` } });

const queryOf = (url: string) => new URL(url).searchParams;

streaming.get('/stream/pass-through', (c) => fetch(streamRequest(c.env, queryOf(c.req.url).toString())));

const room = (env: Env, name: string) => env.BROADCASTER.get(env.BROADCASTER.idFromName(name));

streaming.get('/fanout/socket', (c) => room(c.env, c.req.query('room') ?? '').fetch(c.req.raw));

streaming.post('/fanout/feed', async (c) => {
  const query = queryOf(c.req.url);
  const broadcaster = room(c.env, query.get('room') ?? '');
  query.delete('room');
  const upstream = await fetch(streamRequest(c.env, query.toString()));
  if (!upstream.ok || !upstream.body) return c.json({ error: `the destination answered ${upstream.status}` }, 502);
  const decoder = new TextDecoder();
  let seq = 0;
  for await (const bytes of upstream.body) {
    const txt = decoder.decode(bytes, { stream: true });
    if (txt !== '') await broadcaster.broadcast(JSON.stringify({ type: 'piece', seq: ++seq, txt }));
  }
  return c.json({ frames: seq });
});
