// `npm run bench`: starts the gateway and the hand-written baseline locally (wrangler dev, state in
// a temp folder) and a loopback destination for forwarding, then measures throughput and p50/p99
// latency of scenarios (a)–(g) with a closed-loop load of fixed concurrency over loopback, prints the
// ratios c/b, d/e and f/g twice (bench/ratios.mjs): against the simulated Rate Limiting binding, and with
// ci, di, fi (the same requests counted by the bench's in-isolate stand-in for it), the start latencies of queued forwarding (h), and streamed forwarding:
// piece latency on the realtime socket (s1) against a pass-through Worker (s2) and by polling (sp),
// and fan-out to many sockets against a bare broadcasting Durable Object (s3).
//   npm run bench -- --seconds=5 --warmup=1.5 --rounds=5 --concurrency=16 --only=b,c --json=out.json
//   npm run bench -- --only=f,g,h --h-idle=20 --h-bursts=2 --h-burst-size=10   (h's samples per round)
//   npm run bench -- --profile=c,d  also writes .bench/profile-<id>.cpuprofile and prints where the time went
//   npm run bench -- --assets=both      both Workers behind wrangler's local static-assets routing (gateway: as shipped)
//   npm run bench -- --assets=gateway   only the gateway behind it (as shipped; the baseline has no assets)
//   npm run bench -- --only=s1,s2,sp,s3 --s-pieces=200 --s-gap=20 --s3-sockets=50 --s3-pieces=1000 --s3-gaps=0,10
//   npm run bench -- --only=fl   the flood of issue 26: 20,000 bad signatures at one ticket of project A while B is
//     consumed at 20/s; B's p50/p99 during the flood against B alone (bench/flood.mjs; one run, not rounds);
//     --profile=fl profiles the Worker's isolate over the flood (ms per flooded request); --fl-modes=closed,paced
//     (the default: both, each on projects of its own) sends it closed loop, 64 in flight (the worst case), and
//     open loop at 350 a second (20,000 in 57 s), at most 64 in flight
//   npm run bench -- --only=la,lh,lb --rounds=3   a 100-row page of the owner's ticket log (la) and of a caller's
//     forward history (lh), seeded through the routes, beside the bare route (lb) (bench/listing-scenarios.mjs)
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT, applyMigrations } from '../scripts/local-worker.mjs';
import { startCpuMeter } from './cpu.mjs';
import { startDestination } from './destination.mjs';
import { send } from './load.mjs';
import { machine } from './machine.mjs';
import { summarizeProfile } from './profile.mjs';
import { measureRound, SLICE_SETTLE_MS } from './round.mjs';
import { measureQueueRound } from './queue-latency.mjs';
import { printRatios } from './ratios.mjs';
import { FLOOD_ID, measureFlood } from './flood.mjs';
import { LISTING_IDS, listingScenarios, printListingBaseline } from './listing-scenarios.mjs';
import { newStripeSecret, scenarios, setupGateway } from './scenarios.mjs';
import { median, quantile } from './stats.mjs';
import { measureStreaming, streamingRoundBudgetMs } from './streaming-phase.mjs';
import { printStreaming, summarizeStreaming } from './streaming-report.mjs';
import { BASELINE_CONFIG, BASELINE_WITH_ASSETS_CONFIG, benchGatewayConfig, startWranglerDev } from './wrangler-dev.mjs';

const { values: opts } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '1.5' },
    rounds: { type: 'string', default: '5' },
    concurrency: { type: 'string', default: '16' },
    'max-requests': { type: 'string', default: '100000' },
    only: { type: 'string', default: 'a,b,c,ci,d,di,e,f,fi,g,h,s1,s2,sp,s3,la,lh,lb,fl' },
    'h-idle': { type: 'string', default: '20' },
    'h-bursts': { type: 'string', default: '2' },
    'h-burst-size': { type: 'string', default: '10' },
    's-pieces': { type: 'string', default: '200' },
    's-gap': { type: 'string', default: '20' },
    's3-sockets': { type: 'string', default: '50' },
    's3-pieces': { type: 'string', default: '1000' },
    's3-gaps': { type: 'string', default: '0,10' },
    profile: { type: 'string' },
    'fl-modes': { type: 'string', default: 'closed,paced' },
    assets: { type: 'string', default: 'none' },
    json: { type: 'string' },
  },
});
const SECONDS = Number(opts.seconds);
const WARMUP_SECONDS = Number(opts.warmup);
const ROUNDS = Number(opts.rounds);
const CONCURRENCY = Number(opts.concurrency);
const MAX_REQUESTS = Number(opts['max-requests']);
const ONLY = new Set(opts.only.split(','));
const PROFILE = new Set(opts.profile?.split(',') ?? []);
/** How (fl) sends its flood, each on projects of its own: 'closed' (the worst case) and 'paced' (350/s, open loop). */
const FLOOD_MODES = opts['fl-modes'].split(',');
/** (h) per round: requests on an idle queue, and bursts of requests dispatched at once to one queue. */
const H = { idle: Number(opts['h-idle']), bursts: Number(opts['h-bursts']), burstSize: Number(opts['h-burst-size']) };
/**
 * The streaming scenarios: (s1, s2, sp) each read one stream of `pieces` pieces `gapMs` apart per
 * round; (s3) one stream of `fanOutPieces` to `sockets` sockets per destination pace in `fanOutGaps`
 * (0: back to back, as fast as the destination writes).
 */
const STREAM = {
  rounds: ROUNDS,
  pieces: Number(opts['s-pieces']),
  gapMs: Number(opts['s-gap']),
  sockets: Number(opts['s3-sockets']),
  fanOutPieces: Number(opts['s3-pieces']),
  fanOutGaps: opts['s3-gaps'].split(',').map(Number),
};
const STREAMING_IDS = ['s1', 's2', 'sp', 's3'];
/**
 * Who runs behind wrangler's local static-assets routing. Default none: both Workers are measured
 * the same way, without the two extra local Workers (RPC proxy, asset router) that assets add in
 * front of every request in `wrangler dev` and that are not the Worker's CPU on Cloudflare.
 */
const ASSETS = opts.assets;
if (!['none', 'both', 'gateway'].includes(ASSETS)) throw new Error(`--assets must be none, both or gateway, not ${ASSETS}`);
/** (h)'s goals in ms, reported, not asserted: an idle queue starts within 50 ms, the next request within 20 ms of the previous settling. */
const H_GOALS_MS = { idle: 50, next: 20 };
/**
 * A round in which other work (other processes, or the hypervisor's steal time) kept more than this
 * many cores busy during any of its scenarios is measured again, at most MAX_REPEATS times per phase;
 * "others" stays in the report for every round kept.
 */
const DISTURBED_CORES = 0.25;
const MAX_REPEATS = 5;
/** Each scenario's seconds of a round are measured in this many slices, taking turns with the phase's other scenarios (bench/round.mjs). */
const SLICES = 5;
const STARTUP_BUDGET_MS = 150_000;
/**
 * Each ratio's pair is measured on Workers that have served about as many requests: the local
 * runtime keeps per-request garbage of cross-worker calls uncollected for long (workerd issue 6894),
 * so a process's tail latency grows with the requests it has served. The gateway's scenarios of c/b
 * run on one pair of fresh Workers, d/e on another, instead of the gateway serving four scenarios
 * for every one of the baseline's.
 */
// (h) measures latency, not load: its own phase on a fresh gateway, without the baseline.
// The streaming scenarios share one phase: both Workers and the destination, latency rather than load.
const PHASES = [['a', 'b', 'c', 'ci'], ['d', 'di', 'e'], ['f', 'fi', 'g'], ['h'], STREAMING_IDS, LISTING_IDS, [FLOOD_ID]]
  .map((ids) => ids.filter((id) => ONLY.has(id)))
  .filter((ids) => ids.length > 0);
const FORWARDING = ['f', 'fi', 'g', 'h', ...STREAMING_IDS, ...LISTING_IDS].some((id) => ONLY.has(id));
const LOAD_IDS = [...ONLY].filter((id) => !STREAMING_IDS.includes(id) && id !== FLOOD_ID);
/** (fl): 20 s alone, the flood (under a minute where the machine allows), the logs read back. */
const FLOOD_BUDGET_MS = ONLY.has(FLOOD_ID) ? 360_000 * FLOOD_MODES.length : 0;
/** Generous: 0.5 s per idle sample, 5 s per burst. */
const H_BUDGET_MS = ONLY.has('h') ? ROUNDS * (H.idle * 500 + H.bursts * 5_000) : 0;
const STREAM_BUDGET_MS = (ROUNDS + MAX_REPEATS) * streamingRoundBudgetMs([...ONLY], STREAM);
const budgetMs =
  PHASES.length * STARTUP_BUDGET_MS +
  H_BUDGET_MS +
  STREAM_BUDGET_MS +
  FLOOD_BUDGET_MS +
  (ROUNDS + 2 * MAX_REPEATS) * LOAD_IDS.length * (SECONDS + WARMUP_SECONDS + (SLICES * SLICE_SETTLE_MS) / 1000 + 10) * 1000;

const stateDir = mkdtempSync(path.join(os.tmpdir(), 'svc-bench-'));
const workers = [];
/** The loopback destination of (f), (g), (h) and the streaming scenarios, for the whole run. */
let destination;
const stopWorkers = async () => {
  await Promise.all(workers.splice(0).map((w) => w.stop()));
};
const cleanUp = async () => {
  await stopWorkers();
  await destination?.stop();
  rmSync(stateDir, { recursive: true, force: true });
};
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => cleanUp().then(() => process.exit(130)));
// The run stops by itself whatever happens.
setTimeout(() => {
  console.error(`bench: over its time budget (${Math.round(budgetMs / 1000)} s), stopping`);
  cleanUp().then(() => process.exit(1));
}, budgetMs).unref();

const fmt = (x, digits = 1) => (Number.isFinite(x) ? x.toFixed(digits) : '-');

async function startWorkers(phase, operatorToken, stripeSecret, withBaseline) {
  const gatewayState = path.join(stateDir, `gateway-${phase}`);
  // The destination is on loopback: the bench's gateway may reach private addresses (the shipped default is "false").
  const forwardingVars = (vars) => (destination ? { ...vars, ALLOW_PRIVATE_DESTINATIONS: 'true' } : vars);
  // Both start at once; every one that started is stopped at the end, even when the other failed.
  const settled = await Promise.allSettled([
    applyMigrations(gatewayState, { quiet: true }).then(() =>
      startWranglerDev({
        config: benchGatewayConfig({ assets: ASSETS !== 'none' }),
        persistTo: gatewayState,
        vars: forwardingVars({ OPERATOR_TOKEN: operatorToken, SECRETS_KEY: randomBytes(32).toString('base64') }),
        healthPath: '/v1/health',
      }),
    ),
    ...(withBaseline
      ? [
          startWranglerDev({
            config: ASSETS === 'both' ? BASELINE_WITH_ASSETS_CONFIG : BASELINE_CONFIG,
            persistTo: path.join(stateDir, `baseline-${phase}`),
            vars: { STRIPE_WEBHOOK_SECRET: stripeSecret, ...(destination ? { API_URL: destination.apiUrl, API_KEY: destination.key } : {}) },
            healthPath: '/health',
          }),
        ]
      : []),
  ]);
  for (const s of settled) if (s.status === 'fulfilled') workers.push(s.value);
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((s) => s.value);
}

/** `perRequests`: also each row's ms per request of that many (the flood's). */
function printProfile(id, profile, perRequests) {
  const dir = path.join(ROOT, '.bench');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `profile-${id}.cpuprofile`);
  writeFileSync(file, JSON.stringify(profile.profile));
  // The profiled scripts' text, so a bundle line of the profile can be read back.
  writeFileSync(path.join(dir, `profile-${id}.sources.json`), JSON.stringify(profile.sources));
  const s = summarizeProfile(profile);
  console.log(
    `\nCPU profile of (${id}): ${file} — ${s.busy_ms} ms busy in the Worker isolate${perRequests ? ` (${(s.busy_ms / perRequests).toFixed(3)} ms per request of ${perRequests})` : ''}, ${s.idle_ms} ms idle`,
  );
  const show = (title, rows, n) => {
    console.log(`  ${title}`);
    const each = (ms) => (perRequests ? `  ${(ms / perRequests).toFixed(3).padStart(7)} ms/req` : '');
    for (const r of rows.slice(0, n)) console.log(`    ${String(r.pct).padStart(5)} %  ${String(r.ms).padStart(8)} ms${each(r.ms)}  ${r.name}`);
  };
  show('self time by module', s.selfByModule, 15);
  show('inclusive time by function', s.inclusiveByFunction, 30);
}

/** (h): ROUNDS rounds of idle and burst samples on a fresh gateway; the machine's other work is printed per round. */
async function measureQueue(gateway, serviceId) {
  const rounds = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const stopMeter = startCpuMeter([gateway.pgid], [destination.pgid]);
    const t0 = performance.now();
    const samples = await measureQueueRound({ base: gateway.url, serviceId, destination, round, ...H });
    const cpu = stopMeter(1, (performance.now() - t0) / 1000);
    rounds.push({ ...samples, other_cores: cpu.other_cores, steal_cores: cpu.steal_cores });
    const p50 = (xs) => fmt(quantile(Float64Array.from(xs).sort(), 0.5), 1);
    console.log(
      `  round ${round} (h) queued forwardRequest: idle dispatch→start p50 ${p50(samples.idle.map((x) => x.dispatchToStart))} ms, previous settled→next start p50 ${p50(samples.gaps.map((x) => x.settleToStart))} ms  others ${fmt(cpu.other_cores, 2)} steal ${fmt(cpu.steal_cores, 2)} cores`,
    );
  }
  return rounds;
}

/** Prints p50/p99 of (h)'s samples over all rounds and returns them for --json. */
function printQueueLatency(rounds) {
  const pooled = (kind, key) => Float64Array.from(rounds.flatMap((r) => r[kind].map((x) => x[key]))).sort();
  const rows = [
    ['idle', 'dispatchToStart', 'idle queue: dispatch → start (executed − bench clock at dispatch)', H_GOALS_MS.idle],
    ['idle', 'dispatchToArrival', 'idle queue: dispatch → arrival at the destination', H_GOALS_MS.idle],
    ['idle', 'createdToStart', 'idle queue: created → executed (server clock only)'],
    ['idle', 'dispatchToSeen', 'idle queue: dispatch → settled answer seen by polling every 50 ms'],
    ['queueOnly', 'settleToStart', 'burst, burst taken in: previous responded → next executed (server clock)', H_GOALS_MS.next],
    ['queueOnly', 'answerToArrival', 'burst, burst taken in: previous answer left → next arrival (destination clock)', H_GOALS_MS.next],
    ['gaps', 'settleToStart', 'burst, every pair: previous responded → next executed (server clock)'],
    ['gaps', 'answerToArrival', 'burst, every pair: previous answer left → next arrival (destination clock)'],
  ];
  const out = {};
  console.log(`
(h) queued forwardRequest, ${ROUNDS} round(s) of ${H.idle} idle requests and ${H.bursts} burst(s) of ${H.burstSize}, polled every 50 ms (reported, not asserted):`);
  console.log('| measure | n | p50 ms | p99 ms | max ms | goal |');
  console.log('|---|---:|---:|---:|---:|---|');
  for (const [kind, key, label, goal] of rows) {
    const xs = pooled(kind, key);
    const figures = { n: xs.length, p50: quantile(xs, 0.5), p99: quantile(xs, 0.99), max: xs[xs.length - 1] };
    out[`${kind}.${key}`] = figures;
    const verdict = goal === undefined ? '' : `≤ ${goal}: p50 ${figures.p50 <= goal ? 'met' : 'NOT met'}, p99 ${figures.p99 <= goal ? 'met' : 'NOT met'}`;
    console.log(`| ${label} | ${figures.n} | ${fmt(figures.p50, 1)} | ${fmt(figures.p99, 1)} | ${fmt(figures.max, 1)} | ${verdict} |`);
  }
  const overlaps = rounds.reduce((n, r) => n + r.gaps.filter((g) => g.overlap).length, 0);
  const pairs = rounds.reduce((n, r) => n + r.gaps.length, 0);
  const queueOnly = rounds.reduce((n, r) => n + r.queueOnly.length, 0);
  console.log(
    `  ${queueOnly} of ${pairs} pairs settled after their burst was taken in, the next one stored behind another (the rest overlap the intake of the burst)`,
  );
  console.log(
    `  requests of one queue overlapping at the destination: ${overlaps}; other processes ${rounds.map((r) => fmt(r.other_cores, 2)).join(', ')} and steal ${rounds.map((r) => fmt(r.steal_cores, 2)).join(', ')} cores per round`,
  );
  return { rounds, summary: out, overlaps };
}

async function main() {
  const info = machine();
  console.log(`bench: ${info.nproc} CPUs (${info.cpu}), ${info.memory_gib} GiB, node ${info.node}, wrangler ${info.wrangler}; state in ${stateDir}`);
  const operatorToken = `op_${randomBytes(24).toString('base64url')}`;
  const stripeSecret = newStripeSecret();
  const started = performance.now();
  if (FORWARDING) destination = await startDestination();
  const results = {};
  let queueRounds = [];
  let floodResult;
  let streamRounds = [];
  let list = [];
  for (const [phase, ids] of PHASES.entries()) {
    const t0 = performance.now();
    const queueOnly = ids.length === 1 && ids[0] === 'h';
    const floodOnly = ids.length === 1 && ids[0] === FLOOD_ID;
    const [gateway, baseline] = await startWorkers(phase, operatorToken, stripeSecret, !queueOnly && !floodOnly);
    console.log(
      `bench: fresh Workers for ${ids.join(', ')} up in ${fmt((performance.now() - t0) / 1000)} s; concurrency ${CONCURRENCY}, warm-up ${WARMUP_SECONDS} s, ${SECONDS} s per scenario, ${ROUNDS} round(s)`,
    );
    const { serviceId } = await setupGateway(gateway.url, operatorToken, stripeSecret, destination);
    if (floodOnly) {
      floodResult = {};
      for (const mode of FLOOD_MODES) {
        const { cpuProfile, ...figures } = await measureFlood(gateway, operatorToken, { mode, profile: PROFILE.has(FLOOD_ID) });
        floodResult[mode] = figures;
        if (cpuProfile) printProfile(`${FLOOD_ID}-${mode}`, cpuProfile, figures.flood.requests);
      }
      await stopWorkers();
      continue;
    }
    if (queueOnly) {
      queueRounds = await measureQueue(gateway, serviceId);
      await stopWorkers();
      continue;
    }
    if (ids.every((id) => STREAMING_IDS.includes(id))) {
      streamRounds = await measureStreaming({
        ids,
        workers: { gateway, baseline, destination },
        serviceId,
        setup: STREAM,
        disturbedCores: DISTURBED_CORES,
        maxRepeats: MAX_REPEATS,
      });
      await stopWorkers();
      continue;
    }
    const listings = ids.some((id) => LISTING_IDS.includes(id)) ? await listingScenarios({ gateway, operatorToken, stripeSecret, destination }) : [];
    const phaseList = [...scenarios({ gateway, baseline, serviceId, stripeSecret, destination }), ...listings].filter((s) => ids.includes(s.id));
    for (const scenario of phaseList) {
      const res = await send(undefined, scenario.base, (await scenario.prepare())(0));
      if (res.status !== 200 || !scenario.accepts(res.body)) throw new Error(`(${scenario.id}) unexpected answer: ${res.status} ${res.body}`);
      results[scenario.id] = [];
    }
    let repeats = 0;
    for (let round = 1; round <= ROUNDS; round++) {
      const measured = [];
      const roundResults = await measureRound({
        scenarios: phaseList,
        warmupSeconds: WARMUP_SECONDS,
        seconds: SECONDS,
        slices: SLICES,
        concurrency: CONCURRENCY,
        maxRequests: MAX_REQUESTS,
        helperGroups: destination ? [destination.pgid] : [],
        profileIds: round === 1 && repeats === 0 ? PROFILE : new Set(),
      });
      for (const scenario of phaseList) {
        const { cpuProfile, ...r } = roundResults[scenario.id];
        measured.push([scenario.id, r]);
        console.log(
          `  round ${round} (${scenario.id}) ${scenario.name.padEnd(52)} ${fmt(r.rps, 0).padStart(6)} req/s  p50 ${fmt(r.p50, 2)} ms  p99 ${fmt(r.p99, 2)} ms  server CPU ${fmt(r.server_cpu_ms, 2)} ms/req  others ${fmt(r.other_cores, 2)} steal ${fmt(r.steal_cores, 2)} cores`,
        );
        if (cpuProfile) printProfile(scenario.id, cpuProfile);
      }
      const busiest = Math.max(...measured.map(([, r]) => r.other_cores + (Number.isFinite(r.steal_cores) ? r.steal_cores : 0)));
      if (busiest > DISTURBED_CORES && repeats < MAX_REPEATS) {
        repeats++;
        console.log(`  round ${round} disturbed: other work and steal took ${fmt(busiest, 2)} cores (over ${DISTURBED_CORES}); measured again`);
        round--;
        continue;
      }
      for (const [id, r] of measured) results[id].push(r);
    }
    list = [...list, ...phaseList];
    await stopWorkers();
  }
  if (destination) {
    const { unauthorized } = await destination.stats();
    if (unauthorized > 0) throw new Error(`the destination had ${unauthorized} request(s) without the key`);
  }
  list.sort((x, y) => x.id.localeCompare(y.id));

  // Per scenario, the median over rounds of each figure.
  const keys = ['rps', 'p50', 'p99', 'server_cpu_ms', 'client_cpu_ms', 'helper_cpu_ms', 'other_cores', 'steal_cores'];
  const summary = Object.fromEntries(
    list.map((s) => [
      s.id,
      {
        name: s.name,
        requests: results[s.id].reduce((n, r) => n + r.requests, 0),
        ...Object.fromEntries(keys.map((k) => [k, median(results[s.id].map((r) => r[k]))])),
      },
    ]),
  );
  const range = (id, key, digits) => {
    const xs = results[id].map((r) => r[key]);
    return `${fmt(Math.min(...xs), digits)}–${fmt(Math.max(...xs), digits)}`;
  };
  const many = ROUNDS > 1;
  // Without a load scenario (only h or the streaming ones) the load tables are left out.
  const loadMeasured = list.length > 0;
  if (loadMeasured) {
    console.log(`\nmedians over ${ROUNDS} round(s)${many ? ' (min–max in brackets)' : ''}:`);
    console.log('| scenario | req/s | p50 ms | p99 ms | server CPU ms/req | requests |');
    console.log('|---|---:|---:|---:|---:|---:|');
  }
  for (const [id, s] of Object.entries(summary)) {
    const cell = (key, digits) => `${fmt(s[key], digits)}${many ? ` (${range(id, key, digits)})` : ''}`;
    console.log(`| (${id}) ${s.name} | ${cell('rps', 0)} | ${cell('p50', 2)} | ${cell('p99', 2)} | ${cell('server_cpu_ms', 2)} | ${s.requests} |`);
  }

  // Each ratio is taken per round (both scenarios measured in turns, under the same background load),
  // then the median over rounds is reported; each twice, against the simulated binding and the stand-in.
  const ratios = loadMeasured ? printRatios(results, summary, fmt) : {};
  printListingBaseline(results, fmt);
  const queue = queueRounds.length > 0 ? printQueueLatency(queueRounds) : undefined;
  const streaming = streamRounds.length > 0 ? summarizeStreaming(streamRounds) : undefined;
  if (streaming) {
    printStreaming(streaming, STREAM);
    console.log(
      `  other processes ${streamRounds.map((r) => fmt(r.other_cores, 2)).join(', ')} and steal ${streamRounds.map((r) => fmt(r.steal_cores, 2)).join(', ')} cores per round (the busiest scenario of each round)`,
    );
  }
  const others = Object.values(summary).map((s) => s.other_cores);
  const steal = Object.values(summary).map((s) => s.steal_cores);
  if (others.length > 0)
    console.log(
      `\nother processes kept ${fmt(Math.min(...others), 2)}–${fmt(Math.max(...others), 2)} and the hypervisor took ${fmt(Math.min(...steal), 2)}–${fmt(Math.max(...steal), 2)} of ${info.nproc} cores during the scenarios (median per scenario)`,
    );
  console.log(
    `machine: ${JSON.stringify(info)}; load average at the end ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  console.log("note: every request also crosses wrangler dev's proxy (the same for all scenarios); local observability is off. See docs/performance.md.");
  const assetsNote = {
    none: 'neither Worker behind the local static-assets routing (the gateway without its [assets] table)',
    both: 'both Workers behind the local static-assets routing',
    gateway: 'only the gateway behind the local static-assets routing (as shipped)',
  };
  console.log(`note: --assets=${ASSETS}: ${assetsNote[ASSETS]}.`);
  if (opts.json)
    writeFileSync(
      opts.json,
      JSON.stringify(
        {
          date: new Date().toISOString(),
          options: { SECONDS, WARMUP_SECONDS, ROUNDS, CONCURRENCY, assets: ASSETS, h: H, stream: STREAM },
          machine: info,
          results,
          summary,
          ratios,
          queue,
          streaming: streaming && { summary: streaming, rounds: streamRounds },
          flood: floodResult,
        },
        null,
        2,
      ),
    );
  console.log(`bench: done in ${fmt((performance.now() - started) / 1000)} s`);
}

try {
  await main();
  await cleanUp();
  process.exit(0);
} catch (err) {
  console.error(`bench failed: ${err.stack ?? err}`);
  for (const w of workers) console.error(w.output().slice(-2000));
  await cleanUp();
  process.exit(1);
}
