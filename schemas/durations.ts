/** A duration as a ticket writes it: a positive whole number and s, m, h or d ('90s', '30m', '24h', '7d'). */
const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const SHAPE = /^([1-9][0-9]{0,6})(s|m|h|d)$/;

/** The duration in ms, or null when it is not one (0, negative, garbage) or is longer than maxMs. */
export function durationUpTo(text: string, maxMs: number): number | null {
  const shape = SHAPE.exec(text);
  if (!shape) return null;
  const ms = Number(shape[1]) * UNIT_MS[shape[2] as keyof typeof UNIT_MS];
  return ms <= maxMs ? ms : null;
}
