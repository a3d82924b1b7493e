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
 *   ticket object   b = measured file growth per consumption (cells and a simulated steady state beside it)
 *   R2              bytes held = r × T × R × s;  Class A PUTs a month = r × k × T × 30  (k = objects / op)
 *   D1              d = measured file growth per operation (signed-in consumption: scenario h)
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
export const GOALS = {
  d1BytesPerConsumption: 300,
  deploymentRate: 100,
  deploymentTickets: 10,
  ticketRate: 20,
  retentionDays: 30,
  forwardRate: 100,
  forwardD1BytesPerRequest: 50,
};

/**
 * Steady-state page use, simulated in stock SQLite 3.40 (Python's sqlite3, 4 KiB pages) with the same
 * schema and write pattern; the scripts are in docs/capacity.md ("Steady state of the SQLite files"). The
 * measured file growth of 200 operations cannot tell pages in use from pages freed for reuse, and the
 * stores refuse dbstat; these runs can. Not measured in the Worker: stated as simulated where used.
 */
export const SIMULATED = {
  /** Ticket log (TICKET_LOG_SCHEMA, bodies in log_bodies): 200,000 consumptions at 20/s, 100,000 kept, 4,944-byte bodies, 10 % failed. */
  ticketLogInUsePerRow: 64.7,
  /** The same run, the file with the pages the catch-up deletion freed (reused by the next rows). */
  ticketLogFilePerRow: 102.6,
  /**
   * Forward history in D1, scenario (d)'s sizes: 200,000 requests at 100/s, 100,000 kept. As the rows were
   * written up to migration 0013 (bodies inline, shrunk in place a minute later): one shrunken row per 4 KiB page.
   */
  forwardShrunkInPlaceInUsePerRow: 4338,
  /** As they are written since migration 0016: rows at their final size, the bodies in forward_bodies until they move. */
  forwardInUsePerRow: 1046,
};

const DAY = 86_400;
const MONTH_DAYS = 30;

const byKey = Object.fromEntries(figures.scenarios.map((s) => [s.key, s]));
const sumStores = (stores, field) => Object.values(stores ?? {}).reduce((sum, store) => sum + Math.max(store[field] ?? 0, 0), 0);
const d1Bytes = (s) => sumStores(s.d1, 'physical_bytes');
const d1Logical = (s) => sumStores(s.d1, 'logical_bytes');
const tickets = (s) => s.durable_objects.TICKETS ?? { physical_bytes: 0, logical_bytes: 0, table_rows: 0 };
const r2Total = (s) =>
  Object.values(s.r2).reduce((t, b) => ({ objects: t.objects + (b.total?.objects ?? 0), bytes: t.bytes + (b.total?.bytes ?? 0) }), { objects: 0, bytes: 0 });
const queueMessages = (s) => Object.values(s.queues).reduce((sum, q) => sum + (q.messages ?? 0), 0);
const held = (rate, days, perOp) => rate * DAY * days * perOp;
const maxRate = (limit, perOp, days) => (perOp > 0 ? limit / (DAY * days * perOp) : Infinity);

const n = (x, digits = 0) =>
  !Number.isFinite(x)
    ? 'unbounded'
    : x >= 100
      ? Math.round(x).toLocaleString('en-US')
      : x.toLocaleString('en-US', { maximumFractionDigits: digits || (x < 1 ? 3 : 2) });
const bytes = (x) =>
  x >= 1e12 ? `${n(x / 1e12, 2)} TB` : x >= 1e9 ? `${n(x / 1e9, 2)} GB` : x >= 1e6 ? `${n(x / 1e6, 2)} MB` : x >= 1e3 ? `${n(x / 1e3, 2)} KB` : `${n(x, 0)} B`;
const pct = (x) => `${n(x * 100, 1)} %`;
const table = (head, rows, align) => [head, align ?? head.map(() => '---'), ...rows].map((r) => `| ${r.join(' | ')} |`).join('\n');

function perStoreTable() {
  const namespaces = [...new Set(figures.scenarios.flatMap((s) => Object.keys(s.durable_objects)))];
  const buckets = [...new Set(figures.scenarios.flatMap((s) => Object.keys(s.r2)))];
  const head = [
    'scenario',
    'D1 bytes (file / cells)',
    'D1 rows',
    ...namespaces.map((ns) => `${ns} DO bytes (file / cells), rows`),
    ...buckets.map((b) => `R2 ${b} objects, bytes`),
    'queue messages',
  ];
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
      for (const [name, bt] of Object.entries(st.btrees))
        rows.push([`(${s.key[0]})`, store, bt.kind === 'index' ? `index ${name}` : name, n(bt.rows, 2), n(bt.bytes, 2)]);
    }
    for (const [bucket, shapes] of Object.entries(s.r2)) {
      for (const [shape, t] of Object.entries(shapes))
        if (shape !== 'total' && t.objects > 0) rows.push([`(${s.key[0]})`, `R2 ${bucket}`, `\`${shape}\``, `${n(t.objects, 2)} objects`, n(t.bytes)]);
    }
  }
  return table(['scenario', 'store', 'table, index or key shape', 'rows / op', 'bytes / op'], rows, ['---', '---', '---', '---:', '---:']);
}

const CONSUMPTIONS = ['a_consume_stripe_req', 'b_dry_run', 'c_failed_signature', 'h_signed_in_consumption'];
const FORWARDS = ['d_forward_direct', 'e_forward_queued', 'f_stream_finalized', 'g_stream_not_finalized'];
const label = (s) => `(${s.key[0]}) ${s.title}`;
const forwardQueues = (s) => s.durable_objects.FORWARD_QUEUES ?? { physical_bytes: 0, logical_bytes: 0, table_rows: 0 };
const tableRowsOf = (store, table) =>
  Object.values(store.btrees ?? {})
    .filter((bt) => bt.kind === 'table' && bt.table === table)
    .reduce((sum, bt) => sum + bt.rows, 0);

function objectTable() {
  const perTicketDeployment = GOALS.deploymentRate / GOALS.deploymentTickets;
  const rows = CONSUMPTIONS.filter((key) => byKey[key]).map((key) => {
    const s = byKey[key];
    const t = tickets(s);
    const b = t.physical_bytes;
    const one = held(GOALS.ticketRate, GOALS.retentionDays, b);
    const dep = held(perTicketDeployment, GOALS.retentionDays, b);
    return [
      label(s),
      n(t.logical_bytes, 1),
      `**${n(b, 1)}**`,
      `${bytes(one)} (${pct(one / LIMITS.doObjectBytes)})`,
      `${bytes(dep)} (${pct(dep / LIMITS.doObjectBytes)})`,
      `${n(maxRate(LIMITS.doObjectBytes, b, 30), 1)}/s`,
      `${n(maxRate(LIMITS.doObjectBytes, b, 90), 1)}/s`,
      n(LIMITS.doObjectBytes / b),
    ];
  });
  return table(
    [
      'scenario',
      'cells B / op',
      "b: file growth B / op (the model's figure)",
      `one ticket, ${GOALS.ticketRate}/s × 30 d (of 10 GB)`,
      `each of ${GOALS.deploymentTickets} tickets at ${n(perTicketDeployment)}/s × 30 d`,
      'max per ticket, 30 d',
      '90 d',
      'consumptions until 10 GB (premium: kept)',
    ],
    rows,
    ['---', '---:', '---:', '---:', '---:', '---:', '---:', '---:'],
  );
}

function r2Table() {
  const rows = figures.scenarios.flatMap((s) => {
    const { objects: k, bytes: sb } = r2Total(s);
    if (sb === 0 && k === 0) return [];
    const putsMonth = held(GOALS.deploymentRate, MONTH_DAYS, k);
    const cost = (Math.max(putsMonth - LIMITS.r2ClassAFreePerMonth, 0) / 1e6) * LIMITS.r2ClassAPerMillion;
    const h30 = held(GOALS.deploymentRate, 30, sb);
    const h90 = held(GOALS.deploymentRate, 90, sb);
    return [
      [
        label(s),
        n(sb),
        n(k, 3),
        bytes(h30),
        bytes(h90),
        `${n(GOALS.deploymentRate * k, 2)}/s; ${n(putsMonth)} a month ($${n(cost, 2)})`,
        `$${n((h30 / 1e9) * LIMITS.r2StoragePerGBMonth, 2)} / $${n((h90 / 1e9) * LIMITS.r2StoragePerGBMonth, 2)}`,
      ],
    ];
  });
  return table(
    [
      'scenario',
      's: R2 bytes / op',
      'k: objects (Class A PUTs) / op',
      `held at ${GOALS.deploymentRate}/s, 30 d`,
      '90 d',
      `Class A PUTs at ${GOALS.deploymentRate}/s`,
      'storage $ / month, 30 d / 90 d (before the 10 GB-month free tier)',
    ],
    rows,
    ['---', '---:', '---:', '---:', '---:', '---:', '---:'],
  );
}

function rateTable() {
  const rows = figures.scenarios.map((s) => {
    const b = d1Bytes(s);
    return [
      label(s),
      `${n(b)} / ${n(d1Logical(s))}`,
      n(sumStores(s.d1, 'table_rows'), 2),
      b > 0 ? `${n(maxRate(LIMITS.d1DatabaseBytes, b, 30), 2)}/s` : 'unbounded',
      b > 0 ? `${n(maxRate(LIMITS.d1DatabaseBytes, b, 90), 2)}/s` : 'unbounded',
      b > 0 ? n(LIMITS.d1DatabaseBytes / b) : 'unbounded',
      n(queueMessages(s), 2),
    ];
  });
  return table(
    ['scenario', 'D1 B / op (file / cells)', 'D1 rows / op', 'D1 alone: max rate, 30 d', '90 d', 'D1: ops until 10 GB (no lifetime)', 'queue msgs / op'],
    rows,
    ['---', '---:', '---:', '---:', '---:', '---:', '---:'],
  );
}

function forwardObjectTable() {
  const rows = FORWARDS.filter((key) => byKey[key]).map((key) => {
    const s = byKey[key];
    const f = forwardQueues(s);
    const kept = tableRowsOf(f, 'requests');
    return [
      label(s),
      `${n(f.physical_bytes)} / ${n(f.logical_bytes)}`,
      n(f.table_rows, 2),
      n(kept, 2),
      f.physical_bytes > 0 ? n(LIMITS.doObjectBytes / f.physical_bytes) : 'unbounded',
      `jobs ${n(s.deferred?.jobs ?? 0)}, alarms ${n(s.deferred?.alarms ?? 0)}`,
    ];
  });
  return table(
    [
      'scenario',
      "caller's object B / op (file / cells)",
      'rows / op',
      'of which `requests` rows',
      "ops until one caller's object holds 10 GB (no lifetime without `expires`)",
      'deferred work run before the snapshot',
    ],
    rows,
    ['---', '---:', '---:', '---:', '---:', '---'],
  );
}

function goalLines() {
  const a = byKey.a_consume_stripe_req;
  const h = byKey.h_signed_in_consumption;
  if (!a) return 'No consumption scenario measured.';
  const anon = d1Bytes(a);
  const cells = tickets(a).logical_bytes;
  const b = tickets(a).physical_bytes;
  const perTicketDeployment = GOALS.deploymentRate / GOALS.deploymentTickets;
  const { objects: k, bytes: sb } = r2Total(a);
  const ticketOps = GOALS.ticketRate * DAY * GOALS.retentionDays;
  const depOps = GOALS.deploymentRate * DAY * GOALS.retentionDays;
  const perObject = held(perTicketDeployment, GOALS.retentionDays, b);
  const allObjects = held(GOALS.deploymentRate, GOALS.retentionDays, b);
  const ok = (x) => (x ? '**met**' : '**not met**');
  const dh = h ? d1Bytes(h) : NaN;
  const dhCells = h ? d1Logical(h) : NaN;
  const signedDep = held(GOALS.deploymentRate, GOALS.retentionDays, dh);
  const d = byKey.d_forward_direct;
  return [
    `- **Goal (a), at most ${GOALS.d1BytesPerConsumption} B per consumption in D1, indexes included** (measured: file growth / cells): anonymous Stripe consumption (a) **${n(anon)} B** / ${n(d1Logical(a), 1)} B (dry run ${n(d1Bytes(byKey.b_dry_run ?? a))} B, failed signature ${n(d1Bytes(byKey.c_failed_signature ?? a))} B); signed-in (h) **${n(dh)} B** / ${n(dhCells, 1)} B (rows per consumption: ${n(h ? sumStores(h.d1, 'table_rows') : NaN, 2)}, \`user_consumptions\` with its index \`user_consumptions_by_time\`) — ${ok(Math.max(anon, dh, dhCells) <= GOALS.d1BytesPerConsumption)}. The test asserts both.`,
    `- **Goal (b), one ticket, ${GOALS.ticketRate}/s for ${GOALS.retentionDays} days**: ${n(GOALS.ticketRate)} × 86,400 × ${GOALS.retentionDays} = ${n(ticketOps)} consumptions in one object × b = ${n(b, 1)} B (measured file growth per Stripe consumption) = **${bytes(ticketOps * b)}**, ${pct((ticketOps * b) / LIMITS.doObjectBytes)} of the 10 GB object — ${ok(ticketOps * b <= LIMITS.doObjectBytes)} (cells alone ${bytes(ticketOps * cells)}; simulated steady state ${bytes(ticketOps * SIMULATED.ticketLogInUsePerRow)} in use, ${bytes(ticketOps * SIMULATED.ticketLogFilePerRow)} of file). R2 holds ${bytes(ticketOps * sb)} for it (no limit); its segments are ${n(GOALS.ticketRate * k, 2)} PUTs/s, each to a new key (limit ${LIMITS.r2WritesPerKeyPerSecond}/s per key). Requests: ${n(GOALS.ticketRate * (1 + k), 2)}/s into the object (one consume call per consumption, one compaction per ${n(1 / k)}) against the ~${n(LIMITS.doRequestsPerSecond)}/s soft limit: ${pct((GOALS.ticketRate * (1 + k)) / LIMITS.doRequestsPerSecond)}.`,
    `- **Goal (b), one deployment, ${GOALS.deploymentRate}/s over ${GOALS.deploymentTickets} tickets for ${GOALS.retentionDays} days** (${n(depOps)} consumptions; ${n(perTicketDeployment)}/s per ticket): each object ${n(perTicketDeployment)} × 86,400 × ${GOALS.retentionDays} × ${n(b, 1)} B = **${bytes(perObject)}** (${pct(perObject / LIMITS.doObjectBytes)} of 10 GB) — ${ok(perObject <= LIMITS.doObjectBytes)}; all ${GOALS.deploymentTickets} objects ${bytes(allObjects)} (Workers Paid: no account limit; Free: ${bytes(LIMITS.doAccountBytesFree)} per account, ${n(allObjects / LIMITS.doAccountBytesFree, 1)}×). D1: ${n(anon)} B for anonymous consumptions (webhooks are anonymous); were all ${n(GOALS.deploymentRate)}/s signed in, ${n(GOALS.deploymentRate)} × 86,400 × 30 × ${n(dh)} B = ${bytes(signedDep)} = **${n(signedDep / LIMITS.d1DatabaseBytes, 2)}× one D1 database**: one database holds ${n(maxRate(LIMITS.d1DatabaseBytes, dh, 30), 1)} signed-in consumptions/s at 30 days, ${n(maxRate(LIMITS.d1DatabaseBytes, dh, 90), 1)}/s at 90. R2: ${bytes(held(GOALS.deploymentRate, 30, sb))} at 30 days, ${bytes(held(GOALS.deploymentRate, 90, sb))} at 90 (no limit). Queues: ${n(queueMessages(a))} messages per consumption.`,
    `- **Which limit binds first**: for anonymous consumptions, the ticket's object (10 GB): ${n(maxRate(LIMITS.doObjectBytes, b, 30), 1)}/s per ticket at 30 days, ${n(maxRate(LIMITS.doObjectBytes, b, 90), 1)}/s at 90 (${n(maxRate(LIMITS.doObjectBytes, SIMULATED.ticketLogInUsePerRow, 30), 1)}/s and ${n(maxRate(LIMITS.doObjectBytes, SIMULATED.ticketLogInUsePerRow, 90), 1)}/s at the simulated in-use bytes); no deployment-wide limit on Workers Paid. For signed-in consumptions, D1 (10 GB for the whole deployment) at ${n(maxRate(LIMITS.d1DatabaseBytes, dh, 30), 1)}/s deployment-wide at 30 days. Forwarding adds ${d ? `${n(d1Logical(d), 2)} B of D1 cells per direct request (the caller index, file growth ${n(d1Bytes(d))} B)` : 'not measured'} beside them; the sum \`Σ rᵢ × T × R × dᵢ ≤ 10 GB\` is what counts. The ~${n(LIMITS.doRequestsPerSecond)} req/s per object comes after the storage limits.`,
    forwardGoalLine(),
  ].join('\n');
}

/** Issue 34 item 2: forwarding's history in the callers' objects, D1 keeping one row per caller. */
function forwardGoalLine() {
  const d = byKey.d_forward_direct;
  const e = byKey.e_forward_queued;
  if (!d || !e) return '- **Forwarding**: not measured.';
  const rate = GOALS.forwardRate;
  const perOp = Math.max(forwardQueues(d).physical_bytes, forwardQueues(e).physical_bytes);
  const perCaller = maxRate(LIMITS.doObjectBytes, perOp, GOALS.retentionDays);
  const callersNeeded = Math.ceil(rate / perCaller);
  const d1PerOp = Math.max(d1Logical(d), d1Logical(e), d1Bytes(d), d1Bytes(e));
  const d1Held = held(rate, GOALS.retentionDays, d1PerOp);
  const { objects: k } = r2Total(d);
  const ok = (x) => (x ? '**met**' : '**not met**');
  return `- **Forwarding, ${rate}/s for ${GOALS.retentionDays} days in one deployment (issue 34)**: each request's history row is in its caller's object, ${n(perOp)} B of file growth per request (direct ${n(forwardQueues(d).physical_bytes)} B, queued ${n(forwardQueues(e).physical_bytes)} B; cells ${n(forwardQueues(d).logical_bytes)} B), so one caller's object (10 GB) holds **${n(perCaller, 2)} requests/s for ${GOALS.retentionDays} days**; ${rate}/s for ${GOALS.retentionDays} days needs the requests spread over at least **${n(callersNeeded)} callers** (a web app's callers are its signed-in users and visitors, one object each; Workers Paid has no account limit on objects' storage). D1 holds at most ${n(d1PerOp, 2)} B per forwarded request (the goal: at most ${GOALS.forwardD1BytesPerRequest} B — ${ok(d1PerOp <= GOALS.forwardD1BytesPerRequest)}): ${bytes(d1Held)} at ${rate}/s for ${GOALS.retentionDays} days, ${pct(d1Held / LIMITS.d1DatabaseBytes)} of one database — ${ok(d1Held <= LIMITS.d1DatabaseBytes)}. R2: ${n(rate * k, 2)} segment PUTs/s at ${rate}/s. **What binds next**: one caller's object, at ${n(perCaller, 2)} requests/s sustained for ${GOALS.retentionDays} days (a caller's \`expires\` shortens its rows' lifetime and raises it), then its ~${n(LIMITS.doRequestsPerSecond)} requests/s; no deployment-wide store.`;
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
  "#### The ticket's own object (10 GB per object)",
  '',
  objectTable(),
  '',
  "#### The forwarding caller's object (`ForwardQueueDO`, 10 GB per object)",
  '',
  forwardObjectTable(),
  '',
  '#### R2 (no size limit: bytes, Class A writes, cost)',
  '',
  r2Table(),
  '',
  '#### D1 (10 GB per database, shared by every project) and Queues',
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
