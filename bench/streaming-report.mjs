// Pure summaries of the streaming rounds (streaming-phase.mjs) and their printed report: latency
// quantiles per path, s1 − s2 and sp − s2 per round, and s3's gateway/baseline ratio per pace.
import { median, quantile } from './stats.mjs';

/** Goals of issue 12: the realtime path adds at most 20 ms at p50; fan-out keeps 0.8 of the bare broadcast. */
export const STREAM_GOALS = { addedP50Ms: 20, fanOutRatio: 0.8 };

const LATENCY_PATHS = [
  ['s1', 'gateway, stream + realtime, read on the socket'],
  ['s2', 'baseline pass-through (`return fetch(dest)`), fetch streaming'],
  ['sp', 'gateway, stream, polled with since every 50 ms'],
];

const sorted = (xs) => Float64Array.from(xs).sort();

/** { n, p50, p99, max } of latencies in ms. */
export function latencyFigures(latencies) {
  const xs = sorted(latencies);
  return { n: xs.length, p50: quantile(xs, 0.5), p99: quantile(xs, 0.99), max: xs.length ? xs[xs.length - 1] : NaN };
}

/**
 * From rounds of { s1?, s2?, sp?: { latencies, frames }, s3?: { [gapMs]: { gateway, baseline } } }:
 * per path the pooled figures and each round's; `added` the per-round differences of p50 and p99 to
 * s2 with their medians; `fanOut` per pace the per-round rates and ratios with their medians.
 */
export function summarizeStreaming(rounds) {
  const paths = {};
  for (const [id] of LATENCY_PATHS) {
    const measured = rounds.filter((r) => r[id]);
    if (measured.length === 0) continue;
    paths[id] = {
      pooled: latencyFigures(measured.flatMap((r) => r[id].latencies)),
      rounds: measured.map((r) => latencyFigures(r[id].latencies)),
      frames: median(measured.map((r) => r[id].frames)),
      cpuPerPiece: median(measured.map((r) => r[id].server_cpu_ms / r[id].latencies.length)),
    };
  }
  const added = {};
  for (const id of ['s1', 'sp']) {
    if (!paths[id] || !paths.s2) continue;
    const per = (key) => paths[id].rounds.map((f, i) => f[key] - paths.s2.rounds[i][key]);
    const p50 = per('p50');
    const p99 = per('p99');
    added[id] = { p50: { median: median(p50), rounds: p50 }, p99: { median: median(p99), rounds: p99 } };
  }
  const fanOut = {};
  for (const gap of Object.keys(rounds.find((r) => r.s3)?.s3 ?? {})) {
    const per = rounds.filter((r) => r.s3).map((r) => r.s3[gap]);
    const ratios = per.map((x) => x.gateway.perSecond / x.baseline.perSecond);
    fanOut[gap] = {
      gateway: median(per.map((x) => x.gateway.perSecond)),
      baseline: median(per.map((x) => x.baseline.perSecond)),
      ratio: { median: median(ratios), rounds: ratios },
      frames: { gateway: median(per.map((x) => x.gateway.frames)), baseline: median(per.map((x) => x.baseline.frames)) },
      cpuPer1000: {
        gateway: median(per.map((x) => (x.gateway.server_cpu_ms / x.gateway.delivered) * 1000)),
        baseline: median(per.map((x) => (x.baseline.server_cpu_ms / x.baseline.delivered) * 1000)),
      },
    };
  }
  return { paths, added, fanOut };
}

const fmt = (x, digits = 1) => (Number.isFinite(x) ? x.toFixed(digits) : '-');
const show = ({ median: m, rounds }, digits) => `${fmt(m, digits)}${rounds.length > 1 ? ` (${rounds.map((x) => fmt(x, digits)).join(', ')})` : ''}`;

/** Prints the summary; `setup` = { rounds, pieces, gapMs, sockets, fanOutPieces }. */
export function printStreaming(summary, setup, log = console.log) {
  const { paths, added, fanOut } = summary;
  if (Object.keys(paths).length > 0) {
    log(
      `\n(s1, s2, sp) one stream of ${setup.pieces} pieces ${setup.gapMs} ms apart per path and round, ${setup.rounds} round(s); latency = arrival at the reader − the destination's write, ms, pooled over rounds:`,
    );
    log('| path | pieces | frames per stream | p50 ms | p99 ms | max ms | p50 per round | server CPU ms per piece |');
    log('|---|---:|---:|---:|---:|---:|---|---:|');
    for (const [id, label] of LATENCY_PATHS) {
      const p = paths[id];
      if (!p) continue;
      log(
        `| (${id}) ${label} | ${p.pooled.n} | ${fmt(p.frames, 0)} | ${fmt(p.pooled.p50, 1)} | ${fmt(p.pooled.p99, 1)} | ${fmt(p.pooled.max, 1)} | ${p.rounds.map((f) => fmt(f.p50, 1)).join(', ')} | ${fmt(p.cpuPerPiece, 2)} |`,
      );
    }
    const met = (x) => (x <= STREAM_GOALS.addedP50Ms ? 'met' : 'NOT met');
    if (added.s1)
      log(
        `  s1 − s2, median over rounds of the per-round difference: p50 ${show(added.s1.p50, 1)} ms — goal ≤ ${STREAM_GOALS.addedP50Ms}: ${met(added.s1.p50.median)};  p99 ${show(added.s1.p99, 1)} ms`,
      );
    if (added.sp) log(`  sp − s2 (the poll path, reported): p50 ${show(added.sp.p50, 1)} ms;  p99 ${show(added.sp.p99, 1)} ms`);
  }
  const paces = Object.keys(fanOut);
  if (paces.length > 0) {
    log(
      `\n(s3) fan-out: one stream of ${setup.fanOutPieces} pieces to ${setup.sockets} sockets in one room; pieces delivered per second (pieces × sockets / first write → last arrival), medians over rounds:`,
    );
    log(
      '| destination pace | gateway pieces/s | baseline pieces/s | gateway / baseline (per round) | frames per socket, gateway / baseline | server CPU ms per 1000 pieces delivered, gateway / baseline |',
    );
    log('|---|---:|---:|---|---|---|');
    for (const gap of paces) {
      const f = fanOut[gap];
      const pace = Number(gap) === 0 ? 'back to back' : `${gap} ms apart`;
      log(
        `| ${pace} | ${fmt(f.gateway, 0)} | ${fmt(f.baseline, 0)} | ${show(f.ratio, 2)} — goal ≥ ${STREAM_GOALS.fanOutRatio}: ${f.ratio.median >= STREAM_GOALS.fanOutRatio ? 'met' : 'NOT met'} | ${fmt(f.frames.gateway, 0)} / ${fmt(f.frames.baseline, 0)} | ${fmt(f.cpuPer1000.gateway, 1)} / ${fmt(f.cpuPer1000.baseline, 1)} |`,
      );
    }
  }
}
