import { z } from 'zod';

/**
 * hono-openapi converts schemas through @standard-community/standard-json and standard-openapi, which load
 * each vendor's converter with `import()`. In a one-file Worker bundle, esbuild then wraps every zod module in
 * a lazy initialiser, about 70 KB more. wrangler.toml (`[alias]`) points both packages here: the same three
 * functions for zod, calling zod's own converter. Our document converts its schemas itself (document.ts), so
 * these run only if a route hands hono-openapi a schema to convert.
 */
type Options = Partial<z.core.ToJSONSchemaParams> | undefined;
type Context = { components?: Record<string, unknown>; options?: Options };

export function loadVendor(vendor: string): void {
  throw new Error(`Only zod schemas are converted here, not ${vendor} (src/openapi/zod-vendor.ts).`);
}

export async function toJsonSchema(schema: z.ZodType, options?: Options) {
  return z.toJSONSchema(schema, options);
}

export async function toOpenAPISchema(schema: z.ZodType, context: Context = {}) {
  const { components = {}, options } = context;
  const converted = z.toJSONSchema(schema, { target: 'openapi-3.0', io: 'input', ...options });
  return { schema: converted, components: Object.keys(components).length > 0 ? components : undefined };
}
