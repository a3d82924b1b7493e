/**
 * The flood limits live twice: as the Rate Limiting bindings of wrangler.toml (what counts) and as the steps of
 * src/limits.ts (what an owner may pick, and what the refusals and docs say). They must agree.
 */
import { describe, expect, it } from 'vitest';
import wranglerToml from '../../wrangler.toml?raw';
import { FLOOD_FIXED, FLOOD_PERIOD_SECONDS, TICKET_CALLER_DEFAULT, TICKET_CALLER_STEPS, TICKET_PROJECT_DEFAULT, TICKET_PROJECT_STEPS } from '../../src/limits';

/** Every [[ratelimits]] table: its binding name, namespace and simple limit. */
function rateLimits(toml: string) {
  const tables = toml
    .split(/^\[\[ratelimits\]\]\s*$/m)
    .slice(1)
    .map((table) => table.split(/^\[/m)[0]);
  return tables.map((table) => {
    const simple = /^simple\s*=\s*\{\s*limit\s*=\s*(\d+)\s*,\s*period\s*=\s*(\d+)\s*\}/m.exec(table);
    return {
      name: /^name\s*=\s*"([^"]+)"/m.exec(table)?.[1],
      namespace: /^namespace_id\s*=\s*"(\d+)"/m.exec(table)?.[1],
      limit: Number(simple?.[1]),
      period: Number(simple?.[2]),
    };
  });
}

describe('the flood limits of wrangler.toml and src/limits.ts (issue 26)', () => {
  const bindings = rateLimits(wranglerToml);
  const expected = [
    ...TICKET_CALLER_STEPS.map((limit, i) => ({ name: `FLOOD_TICKET_CALLER_${i + 1}`, limit })),
    ...TICKET_PROJECT_STEPS.map((limit, i) => ({ name: `FLOOD_TICKET_PROJECT_${i + 1}`, limit })),
    ...Object.entries(FLOOD_FIXED).map(([name, limit]) => ({ name, limit })),
  ];

  it('each step and each fixed limit is a binding of that figure, every one over the same period', () => {
    expect(bindings.map(({ name, limit, period }) => ({ name, limit, period }))).toEqual(expected.map((step) => ({ ...step, period: FLOOD_PERIOD_SECONDS })));
  });

  it('each binding counts in a namespace of its own', () => {
    expect(new Set(bindings.map((binding) => binding.namespace)).size).toBe(bindings.length);
    expect(bindings.every((binding) => binding.namespace !== undefined)).toBe(true);
  });

  it("the defaults are steps; the owner routes' limit is above the callers' and secureRequest's below them", () => {
    expect(TICKET_CALLER_STEPS).toContain(TICKET_CALLER_DEFAULT);
    expect(TICKET_PROJECT_STEPS).toContain(TICKET_PROJECT_DEFAULT);
    expect(FLOOD_FIXED.FLOOD_OWNER).toBeGreaterThan(FLOOD_FIXED.FLOOD_CALLER);
    expect(FLOOD_FIXED.FLOOD_SECURE).toBeLessThan(FLOOD_FIXED.FLOOD_CALLER);
  });
});
