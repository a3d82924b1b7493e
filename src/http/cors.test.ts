import { describe, expect, it } from 'vitest';
import { createRouter, renderError } from '../app';
import { corsMiddleware } from './cors';
import { SvcHttpError } from '../wire/errors';

const router = createRouter();
router.use('*', corsMiddleware);
router.get('/json', (c) => c.json({ ok: true }));
router.get('/made', () => new Response('made', { status: 201, headers: { 'x-kept': 'yes' } }));
// Response.redirect's headers are immutable, as are those of an answer passed on from fetch or a Durable Object.
router.get('/immutable', () => Response.redirect('https://example.com/elsewhere', 302));
router.get('/refused', () => {
  throw new SvcHttpError('INVALID_REQUEST', 'No.', { status: 429, retryAfterSeconds: 7 });
});
router.onError((err) => renderError(err));

const EXPOSED = 'Retry-After,x-svc-status-code,x-svc-request-id';

function corsOf(res: Response) {
  return { origin: res.headers.get('access-control-allow-origin'), exposed: res.headers.get('access-control-expose-headers') };
}

describe('CORS headers', () => {
  it('every answer lets any origin read it and exposes Retry-After and the forwarded status and id', async () => {
    for (const path of ['/json', '/made', '/refused', '/no-such-route']) {
      const res = await router.request(path, { headers: { origin: 'https://shop.example' } });
      expect(corsOf(res), path).toEqual({ origin: '*', exposed: EXPOSED });
    }
  });

  it("an answer's own status, headers and body are kept", async () => {
    const made = await router.request('/made');
    expect([made.status, made.headers.get('x-kept'), await made.text()]).toEqual([201, 'yes', 'made']);
    const refused = await router.request('/refused');
    expect([refused.status, refused.headers.get('retry-after'), await refused.json()]).toEqual([429, '7', { code: 'INVALID_REQUEST', message: 'No.' }]);
  });

  it('an answer with immutable headers gets them on a copy with the same status and location', async () => {
    const res = await router.request('/immutable');
    expect(corsOf(res)).toEqual({ origin: '*', exposed: EXPOSED });
    expect([res.status, res.headers.get('location')]).toEqual([302, 'https://example.com/elsewhere']);
  });

  it('a preflight is 204 with the allowed methods, the asked headers and a max age', async () => {
    const res = await router.request('/json', {
      method: 'OPTIONS',
      headers: { origin: 'https://shop.example', 'access-control-request-method': 'PUT', 'access-control-request-headers': 'authorization, x-custom' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-methods')).toBe('GET,HEAD,POST,PUT,PATCH,DELETE');
    expect(res.headers.get('access-control-allow-headers')).toBe('authorization,x-custom');
    expect(res.headers.get('access-control-max-age')).toBe('600');
  });
});
