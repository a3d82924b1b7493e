// One round of a load phase: every scenario warmed up, then measured in short slices that take turns
// (a b c, c b a, a b c, …), so the scenarios of a ratio see the machine in the same state. A slow
// change of the machine's speed (another virtual machine on the host, invisible as steal) then moves
// both sides of a ratio alike instead of whichever scenario happened to run during it.
import { cpuAccount } from './cpu.mjs';
import { startCpuProfile } from './profile.mjs';
import { runLoad } from './load.mjs';
import { summarize } from './stats.mjs';

/** Pause after each slice, so background work a slice leaves (log export alarms, history batches) is not counted in the next. */
export const SLICE_SETTLE_MS = 250;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Measures `scenarios` (each { id, base, prepare, worker: { pgid, inspectorPort } }) for `seconds` each,
 * in `slices` turns of seconds/slices; answers per scenario id the run's summary, its CPU figures and,
 * for the ids in `profileIds`, a CPU profile of its Worker over its slices.
 */
export async function measureRound({ scenarios, warmupSeconds, seconds, slices, concurrency, maxRequests, helperGroups, profileIds = new Set() }) {
  const states = [];
  for (const scenario of scenarios) {
    const nextRequest = await scenario.prepare();
    const load = (ms, max) => runLoad({ base: scenario.base, nextRequest, concurrency, durationMs: ms, maxRequests: max });
    const warm = await load(warmupSeconds * 1000, maxRequests);
    if (warm.errors > 0) throw new Error(`(${scenario.id}) ${warm.errors} failed requests in warm-up, first: ${warm.firstError}`);
    states.push({ scenario, load, account: cpuAccount([scenario.worker.pgid], helperGroups), latencies: [], elapsedMs: 0 });
  }
  const profiles = new Map();
  for (const state of states) {
    if (profileIds.has(state.scenario.id)) profiles.set(state.scenario.id, await startCpuProfile(state.scenario.worker.inspectorPort));
  }
  for (let slice = 0; slice < slices; slice++) {
    const order = slice % 2 === 0 ? states : [...states].reverse();
    for (const state of order) {
      const run = await state.account.during(() => state.load((seconds * 1000) / slices, Math.ceil(maxRequests / slices)));
      if (run.errors > 0) throw new Error(`(${state.scenario.id}) ${run.errors} failed requests, first: ${run.firstError}`);
      for (const latency of run.latencies) state.latencies.push(latency);
      state.elapsedMs += run.elapsedMs;
      await sleep(SLICE_SETTLE_MS);
    }
  }
  const results = {};
  for (const state of states) {
    const stopProfile = profiles.get(state.scenario.id);
    results[state.scenario.id] = {
      ...summarize(state.latencies, state.elapsedMs),
      ...state.account.figures(state.latencies.length, state.elapsedMs / 1000),
      cpuProfile: stopProfile ? await stopProfile() : undefined,
    };
  }
  return results;
}
