// The ratios of `npm run bench`, each reported twice side by side (issue 34): (a) as shipped, the gateway
// counted in miniflare's simulated Rate Limiting binding (a Durable Object request with SQLite writes per
// limit() call); (b) the gateway's own cost, the same requests counted by the bench's in-isolate stand-in
// for the binding (bench/rate-limit-stand-in.ts), as the production binding counts on the Worker's
// machine. The goals are stated on (b); (a) is reported for the record.
import { median } from './stats.mjs';

/** `p50: true` when the p50 ratio has the same goal as throughput. */
export const RATIOS = [
  { label: 'c/b', shipped: ['c', 'b'], own: ['ci', 'b'], goal: 0.8 },
  { label: 'd/e', shipped: ['d', 'e'], own: ['di', 'e'], goal: 0.9 },
  { label: 'f/g', shipped: ['f', 'g'], own: ['fi', 'g'], goal: 0.9, p50: true },
];

/** Per round: throughput n/d, and latency and server CPU per request as d/n (1.00 = as fast, lower is worse). */
function ratioOf(results, [n, d]) {
  const per = (f) => results[n].map((rn, i) => f(rn, results[d][i]));
  const r = {
    rps: per((x, y) => x.rps / y.rps),
    p50: per((x, y) => y.p50 / x.p50),
    p99: per((x, y) => y.p99 / x.p99),
    cpu: per((x, y) => y.server_cpu_ms / x.server_cpu_ms),
  };
  return Object.fromEntries(Object.entries(r).map(([k, xs]) => [k, { median: median(xs), rounds: xs }]));
}

/** Prints the ratio table and returns the ratios for --json, keyed by pair ('c/b', 'ci/b', …). */
export function printRatios(results, summary, fmt) {
  const out = {};
  const rows = [];
  for (const { label, shipped, own, goal, p50: p50Goal } of RATIOS) {
    for (const [figure, pair] of [
      ['(a) simulated binding', shipped],
      ['(b) in-isolate counter', own],
    ]) {
      if (!results[pair[0]] || !results[pair[1]]) continue;
      const r = ratioOf(results, pair);
      out[pair.join('/')] = r;
      const show = ({ median: m, rounds }) => `${fmt(m, 2)}${rounds.length > 1 ? ` (${rounds.map((x) => fmt(x, 2)).join(', ')})` : ''}`;
      const met = (x) => (x >= goal ? 'met' : 'NOT met');
      const verdict = pair === own ? `≥ ${goal}: ${met(r.rps.median)}${p50Goal ? `, p50 ${met(r.p50.median)}` : ''}` : 'none (the simulator)';
      const cpu = `${fmt(r.cpu.median, 2)} (${pair[0]} ${fmt(summary[pair[0]].server_cpu_ms, 2)}, ${pair[1]} ${fmt(summary[pair[1]].server_cpu_ms, 2)} ms/req)`;
      rows.push(`| ${label} | ${figure}: ${pair.join('/')} | ${show(r.rps)} | ${fmt(r.p50.median, 2)} | ${fmt(r.p99.median, 2)} | ${cpu} | ${verdict} |`);
    }
  }
  if (rows.length === 0) return out;
  console.log(
    '\nratios, median over rounds of the per-round ratio (throughput; latency and server CPU per request as denominator/numerator, so 1.00 = as fast):',
  );
  console.log('| ratio | figure | throughput (rounds) | p50 | p99 | server CPU per request | goal on throughput |');
  console.log('|---|---|---|---:|---:|---|---|');
  for (const row of rows) console.log(row);
  return out;
}
