// Pure summaries of a load run: throughput, latency percentiles, and ratios between scenarios.

/** The q-quantile (0..1) of sorted values, nearest-rank. */
export function quantile(sorted, q) {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank];
}

/** { requests, rps, p50, p99, mean } of one measured run; latencies in ms, elapsed in ms. */
export function summarize(latenciesMs, elapsedMs) {
  const sorted = Float64Array.from(latenciesMs).sort();
  const total = sorted.reduce((sum, x) => sum + x, 0);
  return {
    requests: sorted.length,
    rps: elapsedMs > 0 ? (sorted.length * 1000) / elapsedMs : NaN,
    p50: quantile(sorted, 0.5),
    p99: quantile(sorted, 0.99),
    mean: sorted.length ? total / sorted.length : NaN,
  };
}

/** The median of numbers (for combining rounds). */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
