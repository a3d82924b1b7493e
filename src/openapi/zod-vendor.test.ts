import { loadVendor, resolver } from 'hono-openapi';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

// wrangler.toml's [alias] points hono-openapi's two converter packages at zod-vendor.ts, in the deployed
// bundle and (vitest.config.ts) under test. Driven through hono-openapi, so each call reaches the alias.
describe("hono-openapi's converter packages are the zod-only module", () => {
  it('converts a zod schema to JSON Schema with zod itself', async () => {
    const schema = z.object({ id: z.string(), count: z.number().int().optional() });
    expect(await resolver(schema).toJSONSchema()).toEqual(z.toJSONSchema(schema));
  });

  it('converts a zod schema to an OpenAPI 3.0 schema of its input', async () => {
    const { schema } = await resolver(z.object({ when: z.string().nullable().default('now') })).toOpenAPISchema();
    expect(schema).toMatchObject({ type: 'object', properties: { when: { type: 'string', nullable: true, default: 'now' } } });
    expect(schema).not.toHaveProperty('required');
  });

  it('refuses to load another vendor instead of importing it', () => {
    expect(() => loadVendor('valibot', { toJSONSchema: () => ({}) })).toThrow(/Only zod schemas/);
  });
});
