import SwaggerParser from '@apidevtools/swagger-parser';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTestProject, type ProjectOnWorker } from './helpers/worker.js';

// swagger-parser cannot load inside workerd (its CommonJS class chain), so the document is read from
// the real Worker under `wrangler dev`, as a user's code generator would read it.
let worker: ProjectOnWorker;

beforeAll(async () => {
  worker = await createTestProject();
});

describe('/openapi.json', () => {
  it('is a valid OpenAPI 3.0 document for swagger-parser: every $ref resolves, every schema is well formed', async () => {
    const res = await fetch(`${worker.url}/openapi.json`);
    expect(res.status).toBe(200);
    const document = await res.json();
    const validated = await SwaggerParser.validate(document);
    expect(Object.keys(validated.paths ?? {}).length).toBeGreaterThan(20);
  });
});
