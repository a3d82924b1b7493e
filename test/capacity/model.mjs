#!/usr/bin/env node
/**
 * The capacity model of docs/capacity.md, computed from the measured figures (test/capacity/figures.json,
 * written by write-figures.mjs) and the documented limits below. Prints the model's tables as Markdown;
 * with --write, replaces the text between `<!-- model:begin -->` and `<!-- model:end -->` in docs/capacity.md.
 *
 *   node test/capacity/model.mjs [--write]
 *
 * The formulae (docs/capacity.md, "The model"); T = 86,400 s, R = retention in days, r = a rate per second:
 *   held(r, R, b)   = r × T × R × b              what a store holds once retention keeps pace
 *   max_rate(L,R,b) = L / (T × R × b)            the sustained rate that fills limit L exactly
 *   ticket object   b_obj = cells / fill          (cells measured; fill = page-fill factor, stated)
 *   R2              bytes held = r × T × R × s;  Class A PUTs a month = r × k × T × 30  (k = objects / op)
 *   D1 (signed-in)  b_d1 = Σ over the row and its index of (2 + varint + header + values) / fill
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
  r2WritesPerKeyPerSecond: 1,
  r2ClassAPerMillion: 4.5,
  r2ClassAFreePerMonth: 1e6,
  r2StoragePerGBMonth: 0.015,
};
export const GOALS = { d1BytesPerConsumption: 300, deploymentRate: 100, deploymentTickets: 10, ticketRate: 20, retentionDays: 30 };

/**
 * Page fill of the ticket's log in its object's SQLite (4 KiB pages). Not measurable in 200 operations
 * (the tail's 100 bodies dominate), so taken from a simulation of the same schema and write pattern in
 * stock SQLite 3.40 (script in docs/capacity.md, "Page fill of the ticket's log"): 200,000 consumptions at
 * 20/s, 100,000 kept, Stripe-sized bodies (4,944 B), 10 % failed, 100-body segments, hourly retention.
 *   - current schema (body set to NULL in place): 727 B of in-use pages per live row: the pages keep the
 *     cell count they had while holding ~800-byte body prefixes (SQLite's b-tree rebalances a page after
 *     an insert only when it overflows, so a cell that shrinks in place leaves its page part empty). The
 *     same simulation at 203 operations gives 1,069 / 686 / 363 B (stripe / failed / dry run), against
 *     the DO's measured 1,106 / 655 / 348 B: the measured file growth is this fragmentation, not a
 *     transient.
 *   - bodies in a table of their own (deleted on packing, index rows never shrink): 64.7 B per live row.
 */
export const PAGE_FILL = {
  currentSchemaBytesPerRow: 727,
  separateBodiesBytesPerRow: 64.7,
  /** The fill assumed for index rows written once at their final size (bodies apart): cells / 64.7 B ≈ 0.8. */
  appendedIndexFill: 0.8,
};

/**
 * D1's user_consumptions row for a signed-in (/tpa) consumption: not in the measured scenarios (all
 * anonymous), so estimated from migrations/0012 with the SQLite record format. Id lengths assumed.
 */
export const SIGNED = {
  ids: { service_id: 20, user_id: 28, ticket_id: 15, log_key: 11 },
  timestampBytes: 6,
  /** fill of the primary key (service, user, time, …): inserts inside the tree, ~0.69 (random B-tree inserts). */
  primaryFill: 0.69,
  /** fill of user_consumptions_by_time (service, time, …): appends per project, ~0.9. */
  byTimeFill: 0.9,
};

const DAY = 86_400;
const MONTH_DAYS = 30;

const byKey = Object.fromEntries(figures.scenarios.map((s) => [s.key, s]));
const sumStores = (stores, field) => Object.values(stores ?? {}).reduce((sum, store) => sum + Math.max(store[field] ?? 0, 0), 0);
const d1Bytes = (s) => sumStores(s.d1, 'physical_bytes');
const d1Logical = (s) => sumStores(s.d1, 'logical_bytes');
const tickets = (s) => s.durable_objects.TICKETS ?? { physical_bytes: 0, logical_bytes: 0, table_rows: 0 };
const r2Total = (s) => Object.values(s.r2).reduce((t, b) => ({ objects: t.objects + (b.total?.objects ?? 0), bytes: t.bytes + (b.total?.bytes ?? 0) }), { objects: 0, bytes: 0 });
const queueMessages = (s) => Object.values(s.queues).reduce((sum, q) => sum + (q.messages ?? 0), 0);
const held = (rate, days, perOp) => rate * DAY * days * perOp;
const maxRate = (limit, perOp, days) => (perOp > 0 ? limit / (DAY * days * perOp) : Infinity);

const n = (x, digits = 0) =>
  !Number.isFinite(x) ? 'unbounded' : x >= 100 ? Math.round(x).toLocaleString('en-US') : x.toLocaleString('en-US', { maximumFractionDigits: digits || (x < 1 ? 3 : 2) });
const bytes = (x) => (x >= 1e12 ? `${n(x / 1e12, 2)} TB` : x >= 1e9 ? `${n(x / 1e9, 2)} GB` : x >= 1e6 ? `${n(x / 1e6, 2)} MB` : x >= 1e3 ? `${n(x / 1e3, 2)} KB` : `${n(x, 0)} B`);
const pct = (x) => `${n(x * 100, 1)} %`;
const table = (head, rows, align) => [head, align ?? head.map(() => '---'), ...rows].map((r) => `| ${r.join(' | ')} |`).join('\n');

function perStoreTable() {
  const namespaces = [...new Set(figures.scenarios.flatMap((s) => Object.keys(s.durable_objects)))];
  const buckets = [...new Set(figures.scenarios.flatMap((s) => Object.keys(s.r2)))];
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
    n(queueMessages(s), 2),
  ]);
  return table(head, rows);
}

function btreeTable() {
  const rows = [];
  for (const s of figures.scenarios) {
    const stores = [...Object.entries(s.d1).map(([b, st]) => [`D1 ${b}`, st]), ...Object.entries(s.durable_objects).map(([b, st]) => [`DO ${b}`, st])];
    for (const [store, st] of stores) {
      for (const [name, bt] of Object.entries(st.btrees)) rows.push([`(${s.key[0]})`, store, bt.kind === 'index' ? `index ${name}` : name, n(bt.rows, 2), n(bt.bytes, 2)]);
    }
    for (const [bucket, shapes] of Object.entries(s.r2)) {
      for (const [shape, t] of Object.entries(shapes)) if (shape !== 'total' && t.objects > 0) rows.push([`(${s.key[0]})`, `R2 ${bucket}`, `\`${shape}\``, `${n(t.objects, 2)} objects`, n(t.bytes)]);
    }
  }
  return table(['scenario', 'store', 'table, index or key shape', 'rows / op', 'bytes / op'], rows, ['---', '---', '---', '---:', '---:']);
}

/** The signed-in consumption's D1 row (user_consumptions and its index), from the schema. */
function signedD1() {
  const values = Object.values(SIGNED.ids).reduce((a, b) => a + b, 0) + SIGNED.timestampBytes;
  const header = 1 + 5; // header-size varint + one 1-byte serial type per column (texts under 57 bytes)
  const payload = header + values;
  const cell = 2 + (payload < 128 ? 1 : 2) + payload; // cell pointer + payload-size varint + payload (WITHOUT ROWID: no rowid)
  return { cell, cells: 2 * cell, file: cell / SIGNED.primaryFill + cell / SIGNED.byTimeFill };
}

/** Bytes per consumption held by the ticket's object, under each assumption. */
function objectVariants(s) {
  const t = tickets(s);
  return [
    { label: 'cells, perfect packing (lower bound)', b: t.logical_bytes },
    { label: `cells / ${PAGE_FILL.appendedIndexFill} fill: index rows written once, bodies in a table of their own (recommended; simulated ${PAGE_FILL.separateBodiesBytesPerRow} B)`, b: t.logical_bytes / PAGE_FILL.appendedIndexFill },
    { label: '**current schema, steady state (simulated in-use pages per row)**', b: PAGE_FILL.currentSchemaBytesPerRow, current: true },
    { label: 'measured file growth, 200 operations (upper bound)', b: t.physical_bytes },
  ];
}

function objectTable() {
  const a = byKey.a_consume_stripe_req;
  const perTicketDeployment = GOALS.deploymentRate / GOALS.deploymentTickets;
  const rows = objectVariants(a).map(({ label, b }) => {
    const one = held(GOALS.ticketRate, GOALS.retentionDays, b);
    const dep = held(perTicketDeployment, GOALS.retentionDays, b);
    return [
      label,
      n(b, 1),
      `${bytes(one)} (${pct(one / LIMITS.doObjectBytes)})`,
      `${bytes(dep)} (${pct(dep / LIMITS.doObjectBytes)})`,
      `${n(maxRate(LIMITS.doObjectBytes, b, 30), 2)}/s`,
      `${n(maxRate(LIMITS.doObjectBytes, b, 90), 2)}/s`,
    ];
  });
  return table(
    ['(a) Stripe consumption, bytes per consumption in the ticket\'s object', 'b (B)', `one ticket, ${GOALS.ticketRate}/s × 30 d (of 10 GB)`, `deployment: each of ${GOALS.deploymentTickets} tickets at ${n(perTicketDeployment)}/s × 30 d`, 'max per ticket, 30 d', 'max per ticket, 90 d'],
    rows,
    ['---', '---:', '---:', '---:', '---:', '---:'],
  );
}

function r2Table() {
  const rows = ['a_consume_stripe_req', 'b_dry_run', 'c_failed_signature'].flatMap((key) => {
    const s = byKey[key];
    if (!s) return [];
    const { objects: k, bytes: sb } = r2Total(s);
    const putsMonth = held(GOALS.deploymentRate, MONTH_DAYS, k);
    const cost = (Math.max(putsMonth - LIMITS.r2ClassAFreePerMonth, 0) / 1e6) * LIMITS.r2ClassAPerMillion;
    const h30 = held(GOALS.deploymentRate, 30, sb);
    const h90 = held(GOALS.deploymentRate, 90, sb);
    return [[`(${s.key[0]}) ${s.title}`, n(sb), n(k, 3), bytes(h30), bytes(h90), `${n(GOALS.deploymentRate * k, 2)}/s; ${n(putsMonth)} a month ($${n(cost, 2)})`, `$${n((h30 / 1e9) * LIMITS.r2StoragePerGBMonth, 2)} / $${n((h90 / 1e9) * LIMITS.r2StoragePerGBMonth, 2)}`]];
  });
  return table(
    ['scenario', 's: R2 bytes / op', 'k: objects (Class A PUTs) / op', `held at ${GOALS.deploymentRate}/s, 30 d`, '90 d', `Class A PUTs at ${GOALS.deploymentRate}/s`, 'storage $ / month, 30 d / 90 d (before the 10 GB-month free tier)'],
    rows,
    ['---', '---:', '---:', '---:', '---:', '---:', '---:'],
  );
}

function rateTable() {
  const rows = figures.scenarios.map((s) => {
    const b = d1Bytes(s);
    const t = tickets(s);
    return [
      `(${s.key[0]}) ${s.title}`,
      n(b),
      b > 0 ? `${n(maxRate(LIMITS.d1DatabaseBytes, b, 30), 2)}/s` : 'unbounded',
      b > 0 ? `${n(maxRate(LIMITS.d1DatabaseBytes, b, 90), 2)}/s` : 'unbounded',
      b > 0 ? n(LIMITS.d1DatabaseBytes / b) : 'unbounded',
      t.logical_bytes > 0 ? `${n(t.logical_bytes, 1)} / ${n(t.physical_bytes)}` : '0',
      n(r2Total(s).bytes),
      n(queueMessages(s), 2),
    ];
  });
  return table(
    ['scenario', 'D1 B / op (file)', 'D1 alone: max rate 30 d', '90 d', 'D1: ops until 10 GB (no lifetime)', 'ticket object B / op (cells / file)', 'R2 B / op', 'queue msgs / op'],
    rows,
    ['---', '---:', '---:', '---:', '---:', '---:', '---:', '---:'],
  );
}

function goalLines() {
  const a = byKey.a_consume_stripe_req;
  if (!a) return 'No consumption scenario measured.';
  const anon = d1Bytes(a);
  const signed = signedD1();
  const variants = objectVariants(a);
  const current = variants.find((v) => v.current).b;
  const cells = tickets(a).logical_bytes;
  const recommended = cells / PAGE_FILL.appendedIndexFill;
  const upper = tickets(a).physical_bytes;
  const perTicketDeployment = GOALS.deploymentRate / GOALS.deploymentTickets;
  const { objects: k, bytes: sb } = r2Total(a);
  const ticketOps = GOALS.ticketRate * DAY * GOALS.retentionDays;
  const depOps = GOALS.deploymentRate * DAY * GOALS.retentionDays;
  const signedDep = held(GOALS.deploymentRate, GOALS.retentionDays, signed.file);
  const allObjects = held(GOALS.deploymentRate, GOALS.retentionDays, current);
  const ok = (x) => (x ? 'met' : '**not met**');
  return [
    `- **Goal (a), at most ${GOALS.d1BytesPerConsumption} B per consumption in D1**: anonymous consumption measured **${n(anon)} B** (file and cells; dry run ${n(d1Bytes(byKey.b_dry_run ?? a))} B, failed signature ${n(d1Bytes(byKey.c_failed_signature ?? a))} B) — met. Signed-in (/tpa, not measured): one \`user_consumptions\` row and its index, ${n(signed.cell)} B of cells each with ids of ${Object.entries(SIGNED.ids).map(([k2, v]) => `${k2} ${v}`).join(', ')} characters = ${n(signed.cells)} B of cells, **≈ ${n(signed.file)} B** at the assumed fills (${SIGNED.primaryFill} / ${SIGNED.byTimeFill}) — met by estimate; it passes ${GOALS.d1BytesPerConsumption} B once the four ids together exceed ${GOALS.d1BytesPerConsumption} / (1/${SIGNED.primaryFill} + 1/${SIGNED.byTimeFill}) − ${signed.cell - Object.values(SIGNED.ids).reduce((x, y) => x + y, 0)} = ${n(GOALS.d1BytesPerConsumption / (1 / SIGNED.primaryFill + 1 / SIGNED.byTimeFill) - (signed.cell - Object.values(SIGNED.ids).reduce((x, y) => x + y, 0)), 1)} characters.`,
    `- **Goal (b), one ticket, ${GOALS.ticketRate}/s for ${GOALS.retentionDays} days** (${n(ticketOps)} consumptions in one object): current schema ${n(current)} B × ${n(ticketOps)} = ${bytes(ticketOps * current)}, ${n((ticketOps * current) / LIMITS.doObjectBytes, 2)}× the 10 GB object — ${ok(ticketOps * current <= LIMITS.doObjectBytes)} (upper bound ${bytes(ticketOps * upper)}; at cells ${bytes(ticketOps * cells)}). With the bodies in a table of their own: ${n(recommended, 1)} B × ${n(ticketOps)} = ${bytes(ticketOps * recommended)} — ${ok(ticketOps * recommended <= LIMITS.doObjectBytes)}. R2 holds ${bytes(ticketOps * sb)} for it (no limit); its segments are ${n(GOALS.ticketRate * k, 2)} PUTs/s, each to a new key (limit ${LIMITS.r2WritesPerKeyPerSecond}/s per key). Requests: ${n(GOALS.ticketRate * (1 + k), 2)}/s into the object (one consume call per consumption, one compaction per ${n(1 / k)}) against the ~${n(LIMITS.doRequestsPerSecond)}/s soft limit: ${pct((GOALS.ticketRate * (1 + k)) / LIMITS.doRequestsPerSecond)}.`,
    `- **Goal (b), one deployment, ${GOALS.deploymentRate}/s over ${GOALS.deploymentTickets} tickets for ${GOALS.retentionDays} days** (${n(depOps)} consumptions; ${n(perTicketDeployment)}/s per ticket): each object holds ${bytes(held(perTicketDeployment, 30, current))} on the current schema — ${ok(held(perTicketDeployment, 30, current) <= LIMITS.doObjectBytes)} (${bytes(held(perTicketDeployment, 30, recommended))} with bodies apart — ${ok(held(perTicketDeployment, 30, recommended) <= LIMITS.doObjectBytes)}); all objects together ${bytes(allObjects)} (Workers Paid: no account limit; Free: ${bytes(LIMITS.doAccountBytesFree)} per account, ${n(allObjects / LIMITS.doAccountBytesFree, 1)}×). D1: ${n(anon)} B for anonymous traffic; if every consumption were signed in, ${bytes(signedDep)} = **${n(signedDep / LIMITS.d1DatabaseBytes, 1)}× one D1 database** (D1 alone holds ${n(maxRate(LIMITS.d1DatabaseBytes, signed.file, 30), 1)} signed-in consumptions/s at 30 days, ${n(maxRate(LIMITS.d1DatabaseBytes, signed.file, 90), 1)}/s at 90). R2: ${bytes(held(GOALS.deploymentRate, 30, sb))} at 30 days, ${bytes(held(GOALS.deploymentRate, 90, sb))} at 90 (no limit). Queues: ${n(queueMessages(a))} messages per consumption.`,
    `- **Which limit binds first**: the ticket's object (10 GB of SQLite per object) for anonymous traffic — at ${n(maxRate(LIMITS.doObjectBytes, current, 30), 2)}/s per ticket at 30 days and ${n(maxRate(LIMITS.doObjectBytes, current, 90), 2)}/s at 90 on the current schema (between ${n(maxRate(LIMITS.doObjectBytes, upper, 30), 2)}/s and ${n(maxRate(LIMITS.doObjectBytes, cells, 30), 2)}/s at the bounds); ${n(maxRate(LIMITS.doObjectBytes, recommended, 30), 1)}/s and ${n(maxRate(LIMITS.doObjectBytes, recommended, 90), 1)}/s with bodies apart. D1 (10 GB for the whole deployment) for signed-in traffic past ${n(maxRate(LIMITS.d1DatabaseBytes, signed.file, 30), 1)}/s deployment-wide. The ~${n(LIMITS.doRequestsPerSecond)} req/s per object comes after both.`,
  ].join('\n');
}

const model = [
  `Figures of commit \`${figures.commit}\`, measured ${figures.measured_at} (${figures.warm_up_operations} warm-up operations, then ${figures.scenarios.map((s) => `${s.operations} (${s.key[0]})`).join(', ')}).`,
  '',
  '#### Written per operation, per store',
  '',
  perStoreTable(),
  '',
  '#### By table, index and R2 key shape',
  '',
  btreeTable(),
  '',
  '#### The ticket\'s own object (10 GB per object)',
  '',
  objectTable(),
  '',
  '#### R2 (no size limit: bytes, Class A writes, cost)',
  '',
  r2Table(),
  '',
  '#### Every scenario: D1 alone, and the other stores\' inputs',
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
