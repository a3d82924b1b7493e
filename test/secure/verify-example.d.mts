/** The README's verification example (verify-example.mjs), used by the loopback server. */
export function verifySecureRequest(key: string, headers: Record<string, string>, rawBody: string): { user: Record<string, unknown>; data: unknown; api_key?: string };
