/// <reference types="vite/types/importMeta.d.ts" />
import { createExecutionContext } from 'cloudflare:test';
import { env, exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import benchGateway from '../bench/gateway-entry';

/** The shipped Worker's sources: src/index.ts and everything it can import of the repository. */
const shipped: Record<string, string> = import.meta.glob(['/src/**/*.ts', '/durable-objects/**/*.ts', '/schemas/**/*.ts', '!**/*.test.ts'], {
  query: '?raw',
  import: 'default',
  eager: true,
});

const ROUTE = 'https://svc.test/v1/bench/ticket-do';

describe('the bench route', () => {
  it('is not in the production Worker: it answers 404 NOT_FOUND', async () => {
    const res = await exports.default.fetch(ROUTE);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ code: 'NOT_FOUND', message: 'No such route.' });
  });

  it('nothing the shipped Worker is built from imports bench/ (the routes, the Rate Limiting stand-in)', () => {
    expect(Object.keys(shipped)).toContain('/src/index.ts');
    const importsBench = Object.entries(shipped)
      .filter(([, text]) => /(?:from|import)\s*\(?\s*['"][^'"]*\/bench\//.test(text))
      .map(([file]) => file);
    expect(importsBench).toEqual([]);
  });

  it('is not listed in /openapi.json', async () => {
    const doc = (await (await exports.default.fetch('https://svc.test/openapi.json')).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).toContain('/v1/health');
    expect(Object.keys(doc.paths).filter((path) => path.startsWith('/v1/bench'))).toEqual([]);
  });

  it('bench/gateway-entry.ts answers it with a TicketDO round trip to an object that holds no ticket', async () => {
    const res = await benchGateway.fetch(new Request(ROUTE), env, createExecutionContext());
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ exists: false, remaining: null });
  });

  it('bench/gateway-entry.ts passes every other request to the production app', async () => {
    const health = await benchGateway.fetch(new Request('https://svc.test/v1/health'), env, createExecutionContext());
    expect([health.status, await health.json()]).toEqual([200, { ok: true }]);
    const unknown = await benchGateway.fetch(new Request('https://svc.test/v1/bench/nothing'), env, createExecutionContext());
    expect(unknown.status).toBe(404);
  });
});
