/**
 * $CLIENT_SECRET is replaced by the named key's value wherever it stands (url path and query, header
 * values, data strings at any depth, params values); nothing is replaced without secretName or when the
 * token appears nowhere; secretName wins over clientSecretName. The key's value never comes back: not in
 * the answer, the stored result or the history, as written or escaped 1 to 3 times (/reflect).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createProject, putSecret, type TestProject } from '../helpers/api';
import { eventually, forward, history, origin, received, settledEnvelope, uniquePath } from './support';

const SECRET = 'sk_sub_9f8e7d6c5b4a';
const OTHER = 'sk_other_0a1b2c3d4e';
let project: TestProject;

beforeAll(async () => {
  project = await createProject();
  await putSecret(project, 'main', SECRET);
  await putSecret(project, 'older', OTHER);
});

describe('substitution of $CLIENT_SECRET', () => {
  it('fills the url path, the url query, a header value, a data string at depth and a params value', async () => {
    const path = uniquePath('/echo');
    const res = await forward(project, {
      url: `${origin}${path}/$CLIENT_SECRET?inurl=$CLIENT_SECRET`,
      secretName: 'main',
      headers: { 'x-key': 'Key $CLIENT_SECRET', 'content-type': 'application/json' },
      data: { a: { b: [{ c: 'deep $CLIENT_SECRET' }] }, plain: 'no token' },
      params: { p: '$CLIENT_SECRET' },
    });
    expect(res.status).toBe(200);
    // The destination received the value in every position (its echo comes back redacted).
    expect(res.json.path).toBe(`${path}/$CLIENT_SECRET`);
    expect(res.json.query).toBe('?inurl=$CLIENT_SECRET&p=$CLIENT_SECRET');
    expect(res.json.headers['x-key']).toBe('Key $CLIENT_SECRET');
    expect(JSON.parse(res.json.body)).toEqual({ a: { b: [{ c: 'deep $CLIENT_SECRET' }] }, plain: 'no token' });
    expect(res.text).not.toContain(SECRET);
    expect(await received(`${path}/${SECRET}`)).toBe(1);
  });

  it('sends the token as written when no secretName is given', async () => {
    const path = uniquePath('/echo');
    const res = await forward(project, { url: `${origin}${path}`, headers: { 'x-key': '$CLIENT_SECRET' }, method: 'GET', params: { q: '$CLIENT_SECRET' } });
    expect(res.status).toBe(200);
    expect(res.json.headers['x-key']).toBe('$CLIENT_SECRET');
    expect(res.json.query).toBe(`?q=${encodeURIComponent('$CLIENT_SECRET')}`);
  });

  it('sends the request as written, without looking the key up, when the token appears nowhere (even an unknown name)', async () => {
    const path = uniquePath('/echo');
    const res = await forward(project, { url: `${origin}${path}`, secretName: 'no-such-key', headers: { 'x-key': 'plain' }, method: 'GET' });
    expect(res.status).toBe(200);
    expect(res.json.headers['x-key']).toBe('plain');
    expect(await received(path)).toBe(1);
  });

  it('secretName wins over clientSecretName; clientSecretName alone names the key', async () => {
    const winner = await forward(project, {
      url: `${origin}/reflect`,
      method: 'GET',
      secretName: 'main',
      clientSecretName: 'older',
      headers: { 'x-api-key': '$CLIENT_SECRET' },
    });
    expect(winner.text).toContain('plain: $CLIENT_SECRET');
    // Only the key used is redacted: had the older key been sent, its value would show here.
    expect(winner.text).not.toContain(OTHER);
    const older = await forward(project, { url: `${origin}/reflect`, method: 'GET', clientSecretName: 'older', headers: { 'x-api-key': '$CLIENT_SECRET' } });
    expect(older.text).toContain('plain: $CLIENT_SECRET');
    expect(older.text).not.toContain(OTHER);
  });
});

/** The value as /reflect escapes it: as is, percent-encoded, then HTML entities, then \\u escapes. */
const pct = (text: string) => [...new TextEncoder().encode(text)].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('');
const html = (text: string) => [...text].map((ch) => `&#${ch.codePointAt(0)};`).join('');
const unicode = (text: string) => [...text].map((ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
const COPIES = [SECRET, pct(SECRET), html(pct(SECRET)), unicode(html(pct(SECRET)))];

function expectNoCopy(text: string, where: string): void {
  for (const copy of COPIES) expect(text.includes(copy), `${where} holds ${copy.slice(0, 40)}`).toBe(false);
}

describe('the key never comes back', () => {
  it('a direct answer shows $CLIENT_SECRET for the key as is and escaped 1 to 3 times, in the body and the history', async () => {
    const res = await forward(project, { url: `${origin}/reflect`, method: 'GET', secretName: 'main', headers: { 'x-api-key': '$CLIENT_SECRET' } });
    expect(res.status).toBe(200);
    expect(res.text).toContain('plain: $CLIENT_SECRET');
    expect(res.text).toContain('once: $CLIENT_SECRET');
    expectNoCopy(res.text, 'the answer');
    expectNoCopy(JSON.stringify([...res.headers]), 'the answer headers');
    // A direct request reaches the history just after its answer.
    const id = res.headers.get('x-svc-request-id');
    const listing = () => history(project, { url: `${origin}/reflect`, method: 'GET' });
    await eventually('the request is listed', async () => (await listing()).json.list.some((item: { id: string }) => item.id === id));
    expectNoCopy((await listing()).text, 'the history');
  });

  it('a queued request keeps $CLIENT_SECRET in its stored result, its poll and its history', async () => {
    const url = `${origin}/reflect`;
    const res = await forward(project, { url, method: 'GET', queue: 'reflect', secretName: 'main', headers: { 'x-api-key': '$CLIENT_SECRET' } });
    expect(res.status).toBe(200);
    const done = await settledEnvelope(project, { id: res.json.id, url, method: 'GET' });
    expect(done.status).toBe('resolved');
    expect(String(done.response_body)).toContain('plain: $CLIENT_SECRET');
    expectNoCopy(JSON.stringify(done), 'the poll');
    const listed = await history(project, { url, method: 'GET', queue: 'reflect', queue_exact: 'true' });
    expect(listed.json.list).toEqual([expect.objectContaining({ id: res.json.id, status: 'resolved' })]);
    expectNoCopy(listed.text, 'the history');
    const compact = await history(project, { url, method: 'GET', queue: 'reflect', compact: 'true' });
    expectNoCopy(compact.text, 'the compact history');
  });
});
