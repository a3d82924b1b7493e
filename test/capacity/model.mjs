#!/usr/bin/env node
/**
 * The capacity model of docs/capacity.md, computed from the measured figures (test/capacity/figures.json,
 * written by write-figures.mjs). Prints the model's tables as Markdown; with --write, replaces the text
 * between `<!-- model:begin -->` and `<!-- model:end -->` in docs/capacity.md.
 *
 *   node test/capacity/model.mjs [--write]
 *
 * The formulae (docs/capacity.md, "The model"):
 *   held(R)     = rate × 86,400 × R × bytes_per_op           what a store holds at R days of retention
 *   max_rate(R) = limit / (86,400 × R × bytes_per_op)        the sustained rate that fills it exactly
 *   ops_to_fill = limit / bytes_per_op                       for what is kept without a lifetime
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');
const figures = JSON.parse(readFileSync(path.join(root, 'test/capacity/figures.json'), 'utf8'));

/** Documented limits (sources in docs/capacity.md, "Limits"). GB as Cloudflare bills it: 10^9 bytes. */
export const LIMITS = {
  d1DatabaseBytes: 10e9,
  d1DatabaseBytesFree: 500e6,
  doObjectBytes: 10e9,
  doAccountBytesFree: 5e9,
  doRequestsPerSecond: 1_000,
  queueMessagesPerSecond: 5_000,
};
export const GOALS = { d1BytesPerConsumption: 300, deploymentRate: 100, deploymentTickets: 10, ticketRate: 20, retentionDays: 30 };
const DAY = 86_400;
const RETENTIONS = [30, 90];

const byKey = Object.fromEntries(figures.scenarios.map((s) => [s.key, s]));
const sumStores = (stores, field) => Object.values(stores).reduce((sum, store) => sum + Math.max(store[field], 0), 0);
const d1Bytes = (s) => sumStores(s.d1, 'physical_bytes');
const d1Logical = (s) => sumStores(s.d1, 'logical_bytes');
const maxRate = (limit, bytes, days) => (bytes > 0 ? limit / (DAY * days * bytes) : Infinity);

const n = (x, digits = 0) =>
  !Number.isFinite(x) ? 'unbounded' : x >= 100 ? Math.round(x).toLocaleString('en-US') : x.toLocaleString('en-US', { maximumFractionDigits: digits || (x < 1 ? 3 : 2) });
const bytes = (x) => (x >= 1e9 ? `${n(x / 1e9, 2)} GB` : x >= 1e6 ? `${n(x / 1e6, 2)} MB` : x >= 1e3 ? `${n(x / 1e3, 2)} KB` : `${n(x, 0)} B`);

function perStoreTable() {
  const namespaces = [...new Set(figures.scenarios.flatMap((s) => Object.keys(s.durable_objects)))];
  const buckets = [...new Set(figures.scenarios.flatMap((s) => Object.keys(s.r2)))];
  const queues = [...new Set(figures.scenarios.flatMap((s) => Object.keys(s.queues)))];
  const head = ['scenario', 'D1 bytes (file / cells)', 'D1 rows', ...namespaces.map((ns) => `${ns} DO bytes (file / cells), rows`), ...buckets.map((b) => `R2 ${b} objects, bytes`), 'queue messages'];
  const rows = figures.scenarios.map((s) => [
    `(${s.key[0]}) ${s.title}`,
    `${n(d1Bytes(s))} / ${n(d1Logical(s))}`,
    n(sumStores(s.d1, 'table_rows'), 2),
    ...namespaces.map((ns) => {
      const store = s.durable_objects[ns];
      return store ? `${n(store.physical_bytes)} / ${n(store.logical_bytes)}, ${n(store.table_rows, 2)}` : '-';
    }),
    ...buckets.map((b) => `${n(s.r2[b]?.total.objects ?? 0, 2)}, ${n(s.r2[b]?.total.bytes ?? 0)}`),
    n(queues.reduce((sum, q) => sum + (s.queues[q]?.messages ?? 0), 0), 2),
  ]);
  return [head, head.map(() => '---'), ...rows].map((r) => `| ${r.join(' | ')} |`).join('\n');
}

function btreeTable() {
  const lines = ['| scenario | store | table or index | rows / op | bytes / op (cells) |', '|---|---|---|---:|---:|'];
  for (const s of figures.scenarios) {
    const stores = [...Object.entries(s.d1).map(([b, st]) => [`D1 ${b}`, st]), ...Object.entries(s.durable_objects).map(([b, st]) => [`DO ${b}`, st])];
    for (const [store, st] of stores) {
      for (const [name, bt] of Object.entries(st.btrees)) lines.push(`| (${s.key[0]}) | ${store} | ${bt.kind === 'index' ? `index ${name}` : name} | ${n(bt.rows, 2)} | ${n(bt.bytes)} |`);
    }
  }
  return lines.join('\n');
}

function rateTable() {
  const lines = [
    '| scenario | D1 bytes / op | D1: ops until 10 GB | D1: max rate, 30 d | D1: max rate, 90 d | busiest DO: bytes / op | that object: ops until 10 GB |',
    '|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const s of figures.scenarios) {
    const b = d1Bytes(s);
    const dos = Object.entries(s.durable_objects).map(([ns, st]) => [ns, Math.max(st.physical_bytes, st.logical_bytes, 0)]);
    const [ns, doBytes] = dos.sort((x, y) => y[1] - x[1])[0] ?? ['-', 0];
    lines.push(
      `| (${s.key[0]}) ${s.title} | ${n(b)} | ${n(b > 0 ? LIMITS.d1DatabaseBytes / b : Infinity)} | ${n(maxRate(LIMITS.d1DatabaseBytes, b, 30), 2)}/s | ${n(maxRate(LIMITS.d1DatabaseBytes, b, 90), 2)}/s | ${doBytes > 0 ? `${n(doBytes)} (${ns})` : '0'} | ${n(doBytes > 0 ? LIMITS.doObjectBytes / doBytes : Infinity)} |`,
    );
  }
  return lines.join('\n');
}

function goalLines() {
  const a = byKey.a_consume_stripe_req;
  if (!a) return 'No consumption scenario measured.';
  const b = d1Bytes(a);
  const logical = d1Logical(a);
  const held = (rate, days, perOp) => rate * DAY * days * perOp;
  const deployment = held(GOALS.deploymentRate, GOALS.retentionDays, b);
  const ticket = held(GOALS.ticketRate, GOALS.retentionDays, b);
  const atGoal = held(GOALS.deploymentRate, GOALS.retentionDays, GOALS.d1BytesPerConsumption);
  const ticketDo = Math.max(...Object.values(a.durable_objects).map((st) => Math.max(st.physical_bytes, st.logical_bytes, 0)), 0);
  const ticketDoBudget = LIMITS.doObjectBytes / (GOALS.ticketRate * DAY * GOALS.retentionDays);
  return [
    `- **Goal (a), at most ${GOALS.d1BytesPerConsumption} B per consumption in D1**: measured ${n(b)} B (file growth; ${n(logical)} B of cells, indexes included) — ${b <= GOALS.d1BytesPerConsumption ? 'met' : `**not met: ${n(b / GOALS.d1BytesPerConsumption, 1)}× the goal**`}.`,
    `- **Goal (b), one deployment, ${GOALS.deploymentRate} consumptions/s for ${GOALS.retentionDays} days** (${n(GOALS.deploymentRate * DAY * GOALS.retentionDays)} consumptions held): D1 would hold ${bytes(deployment)} — ${deployment <= LIMITS.d1DatabaseBytes ? 'within' : `**${n(deployment / LIMITS.d1DatabaseBytes, 1)}× the 10 GB database**`}. Today's layout sustains ${n(maxRate(LIMITS.d1DatabaseBytes, b, 30), 2)} consumptions/s at 30 days (${n(maxRate(LIMITS.d1DatabaseBytes, b, 90), 2)}/s at 90).`,
    `- **Goal (b), one ticket, ${GOALS.ticketRate} consumptions/s for ${GOALS.retentionDays} days**: D1 would hold ${bytes(ticket)} for that ticket alone — ${ticket <= LIMITS.d1DatabaseBytes ? 'within' : `**${n(ticket / LIMITS.d1DatabaseBytes, 1)}× the database**`}. The ticket's own object keeps ${n(ticketDo)} B per consumption once its outbox is drained (its budget, were the log kept there: ${n(ticketDoBudget)} B per consumption in 10 GB).`,
    `- **Even at goal (a)**, one D1 database holds ${GOALS.deploymentRate}/s × ${GOALS.retentionDays} days × ${GOALS.d1BytesPerConsumption} B = ${bytes(atGoal)}: ${atGoal <= LIMITS.d1DatabaseBytes ? 'within 10 GB' : `${n(atGoal / LIMITS.d1DatabaseBytes, 1)}× the database`}. One database at ${GOALS.d1BytesPerConsumption} B sustains ${n(maxRate(LIMITS.d1DatabaseBytes, GOALS.d1BytesPerConsumption, 30), 2)} consumptions/s for 30 days, so goal (b) needs ${n(Math.ceil(atGoal / LIMITS.d1DatabaseBytes))} D1 shards at ${GOALS.d1BytesPerConsumption} B, or D1 bytes per consumption of at most ${n(LIMITS.d1DatabaseBytes / (GOALS.deploymentRate * DAY * GOALS.retentionDays))} B, or the log's index outside the one database (each ticket's object: ${n(ticketDoBudget)} B per consumption at ${GOALS.ticketRate}/s).`,
  ].join('\n');
}

const model = [
  `Figures of commit \`${figures.commit}\`, measured ${figures.measured_at} (${figures.warm_up_operations} warm-up operations, then ${figures.scenarios.map((s) => `${s.operations} (${s.key[0]})`).join(', ')}).`,
  '',
  '#### Written per operation, per store',
  '',
  perStoreTable(),
  '',
  '#### By table and index',
  '',
  btreeTable(),
  '',
  '#### Sustained rates (one store alone)',
  '',
  rateTable(),
  '',
  '#### The goals of item 2',
  '',
  goalLines(),
].join('\n');

if (process.argv.includes('--write')) {
  const file = path.join(root, 'docs/capacity.md');
  const doc = readFileSync(file, 'utf8');
  const next = doc.replace(/<!-- model:begin -->[\s\S]*<!-- model:end -->/, `<!-- model:begin -->\n${model}\n<!-- model:end -->`);
  if (next === doc && !doc.includes(model)) throw new Error('docs/capacity.md has no <!-- model:begin --> … <!-- model:end --> section');
  writeFileSync(file, next);
  console.log('docs/capacity.md: model section rewritten');
} else console.log(model);
