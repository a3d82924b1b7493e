// The streaming phase of `npm run bench`: rounds of (s1), (s2), (sp) and (s3) on one pair of fresh
// Workers, each scenario under a CPU meter; a round in which other work took more than
// `disturbedCores` is measured again (at most `maxRepeats` times in the phase), as for the others.
import { startCpuMeter } from './cpu.mjs';
import { baselineFanOutRound, gatewayFanOutRound, passThroughRound, pollRound, realtimeRound } from './streaming.mjs';
import { latencyFigures } from './streaming-report.mjs';

const fmt = (x, digits = 1) => (Number.isFinite(x) ? x.toFixed(digits) : '-');

/**
 * Runs `run()` under a CPU meter of both Workers and the destination: its result with `server_cpu_ms`
 * (the CPU the measured Worker's process group used, ms), and the cores others and the hypervisor took.
 */
async function metered({ gateway, baseline, destination }, target, run) {
  const other = target === gateway ? baseline : gateway;
  const stop = startCpuMeter([target.pgid], [other.pgid, destination.pgid]);
  const t0 = performance.now();
  const result = await run();
  const cpu = stop(1, (performance.now() - t0) / 1000);
  return {
    result: { ...result, server_cpu_ms: cpu.server_cpu_ms },
    disturbance: cpu.other_cores + (Number.isFinite(cpu.steal_cores) ? cpu.steal_cores : 0),
    other: cpu.other_cores,
    steal: cpu.steal_cores,
  };
}

/** Time a round may take at most (ms), for the run's watchdog. */
export function streamingRoundBudgetMs(ids, setup) {
  const stream = setup.pieces * Math.max(setup.gapMs, 1) + 30_000;
  const fanOut = setup.fanOutGaps.reduce((ms, gap) => ms + 2 * (setup.fanOutPieces * Math.max(gap, 1) + 30_000 + setup.sockets * 200), 0);
  return ['s1', 's2', 'sp'].filter((id) => ids.includes(id)).length * stream + (ids.includes('s3') ? fanOut : 0);
}

/**
 * `setup` = { rounds, pieces, gapMs, sockets, fanOutPieces, fanOutGaps }. Returns the rounds kept, each
 * { s1?, s2?, sp?: { latencies, frames, server_cpu_ms }, s3?: { [gap]: { gateway, baseline } }, other_cores, steal_cores }
 * (s3's sides: { perSecond, elapsedMs, frames, server_cpu_ms }).
 */
export async function measureStreaming({ ids, workers, serviceId, setup, disturbedCores, maxRepeats, log = console.log }) {
  const { gateway, baseline, destination } = workers;
  const kept = [];
  let repeats = 0;
  for (let round = 1; round <= setup.rounds; round++) {
    const r = {};
    const meters = [];
    const line = [];
    const latencyRound = async (id, target, run) => {
      const m = await metered(workers, target, () => run({ gateway, baseline, serviceId, destination, pieces: setup.pieces, gapMs: setup.gapMs }));
      meters.push(m);
      r[id] = m.result;
      const f = latencyFigures(m.result.latencies);
      line.push(`(${id}) p50 ${fmt(f.p50)} p99 ${fmt(f.p99)} ms`);
    };
    if (ids.includes('s1')) await latencyRound('s1', gateway, realtimeRound);
    if (ids.includes('s2')) await latencyRound('s2', baseline, passThroughRound);
    if (ids.includes('sp')) await latencyRound('sp', gateway, pollRound);
    if (ids.includes('s3')) {
      r.s3 = {};
      for (const gapMs of setup.fanOutGaps) {
        const args = { gateway, baseline, serviceId, destination, sockets: setup.sockets, pieces: setup.fanOutPieces, gapMs };
        const g = await metered(workers, gateway, () => gatewayFanOutRound(args));
        const b = await metered(workers, baseline, () => baselineFanOutRound(args));
        meters.push(g, b);
        r.s3[gapMs] = { gateway: g.result, baseline: b.result };
        line.push(`(s3, ${gapMs} ms) ${fmt(g.result.perSecond, 0)} / ${fmt(b.result.perSecond, 0)} pieces/s`);
      }
    }
    r.other_cores = Math.max(...meters.map((m) => m.other));
    r.steal_cores = Math.max(...meters.map((m) => m.steal));
    const busiest = Math.max(...meters.map((m) => m.disturbance));
    log(`  round ${round} ${line.join('  ')}  others ${fmt(r.other_cores, 2)} steal ${fmt(r.steal_cores, 2)} cores`);
    if (busiest > disturbedCores && repeats < maxRepeats) {
      repeats++;
      log(`  round ${round} disturbed: other work and steal took ${fmt(busiest, 2)} cores (over ${disturbedCores}); measured again`);
      round--;
      continue;
    }
    kept.push(r);
  }
  return kept;
}
