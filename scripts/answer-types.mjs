// `npm run answer-types`: writes schemas/answer-types.generated.ts, the zod-free TypeScript of the answers
// the routes declare (schemas/answers.ts), which the client, the dashboard and the server import. The client
// ships declarations without package imports (client/build.mjs), so `z.infer` cannot reach it: the types are
// generated from the same schemas instead (zod's JSON Schema, then json-schema-to-typescript). CI regenerates
// the file and fails when it changed (`--check`).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { compile } from 'json-schema-to-typescript';
import { ROOT } from './local-worker.mjs';

const OUT = path.join(ROOT, 'schemas', 'answer-types.generated.ts');

/** Loads schemas/answers.ts and stored-ticket.ts (TypeScript) by bundling them for Node, zod left as the package it is. */
async function loadAnswers() {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-answer-types-'));
  try {
    const file = path.join(dir, 'answers.mjs');
    await build({
      stdin: { contents: "export * from './answers.ts'; export * from './stored-ticket.ts';", resolveDir: path.join(ROOT, 'schemas'), loader: 'ts' },
      bundle: true,
      format: 'esm',
      platform: 'node',
      outfile: file,
      external: ['zod'],
      logLevel: 'error',
    });
    // The bundle imports zod from where it stands: resolve it from the repository.
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replaceAll(
        /from ["']zod["']/g,
        `from ${JSON.stringify(pathToFileURL(path.join(ROOT, 'node_modules', 'zod', 'index.js')).href)}`,
      ),
    );
    return await import(pathToFileURL(file).href);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Each generated type: its name, the schema it is the output of, and what it is (else the schema's own
 * description). A type whose schema appears inside another is named there, not written out again.
 */
const typesOf = (a) => [
  ['ConditionRow', a.storedConditionRow],
  ['MatchPart', a.storedMatchPart],
  ['HeaderRow', a.storedHeaderRow],
  ['UserRow', a.storedUserRow],
  ['SignatureConfig', a.storedSignature],
  ['RequestCondition', a.storedRequestCondition],
  ['TicketCondition', a.storedCondition],
  ['TicketAction', a.storedAction],
  ['PublicTicket', a.publicTicketAnswer, 'A ticket as getTickets lists it to a signed-in user (spec 2.1.1).'],
  ['OwnerTicket', a.ownerTicketAnswer, 'A ticket as getTickets lists it to the project owner (spec 2.1.1): the stored form; it registers again unchanged.'],
  ['ConsumedRow', a.consumedAnswer, "A row of getConsumedTickets: one of the caller's own signed-in consumptions (spec 2.6)."],
  [
    'LoggedRequest',
    a.loggedRequestAnswer,
    'The request a consumption received, as its log keeps it for the owner to re-check or replay: credentials redacted.',
  ],
  ['SampledSummary', a.sampledSummaryAnswer],
  ['OwnerLogRow', a.ticketLogAnswer, "A row of the owner's ticket log: a consumed row plus what the owner needs to read the log."],
  ['ActionListingRow', a.actionRowAnswer, 'One action that ran in a consumption: what it sent, what came back, its error.'],
  ['LogClearAnswer', a.logClearingAnswer, 'The answer of clearTicketLog: the log rows before `before` are deleted in the background.'],
  ['ForwardFailure', a.forwardErrorAnswer, 'Why a request failed; a streamed one may add what the destination answered or how far it got.'],
  [
    'ForwardStatusEnvelope',
    a.forwardStatusEnvelopeAnswer,
    'The answer of a queued dispatch and of every poll: status, id and in_queue always travel together.',
  ],
  ['FinalizeAnswer', a.finalizeAnswer, "forwardRequestFinalize's answer."],
  ['RemovalAnswer', a.removalAnswer, 'cancelForwardRequest and the withdrawal of a waiting request.'],
  ['QueueCountAnswer', a.queueCountAnswer, 'The unresolved requests of a queue.'],
  ['RequestHistory', a.requestHistoryAnswer, 'One item of forwardRequestHistory (spec 2.8); compact items carry the *_text members instead of bodies.'],
  ['ForwardCheckAnswer', a.forwardCheckAnswer, 'What a dry run (`check: true`) answers: the request as it would go, the key shown as its token.'],
  ['PausedDestinations', a.pausedDestinationsAnswer, "Extension: the answer of listPausedDestinations, the project's open and half-open destination circuits."],
  [
    'DeadLetter',
    a.deadLetterAnswer,
    'Extension: one item of listProjectDeadLetters, a queued request sent with retry that failed after its last attempt, and why.',
  ],
  ['BulkReplay', a.bulkReplayAnswer, "Extension: a ticket's bulk replay with its progress (getBulkReplay, cancelBulkReplay)."],
  ['BulkReplayStart', a.bulkReplayStartAnswer, "Extension: startBulkReplay's answer, the count (dry run) or the replay started."],
  ['DeadLetterReplay', a.deadLetterReplayAnswer, "Extension: replayTicketDeadLetter's answer, what the replay answered."],
  ['MetricsAnswer', a.metricsAnswer, "Extension: getTicketMetrics' and getProjectMetrics' answer, a point per bucket and the totals."],
  ['LogEvent', a.logEventAnswer, 'Extension: one consumption as the event inspector lists it (searchTicketEvents).'],
  ['LogEventPage', a.logEventsAnswer, "Extension: searchTicketEvents' answer, a page of the search with how far it walked the log."],
  ['LogEventDetail', a.logEventDetailAnswer, "Extension: getTicketEvent's answer, one consumption in full."],
  ['ReceiptBody', a.receiptAnswer, "A consumption's receipt as the service sends it."],
  ['SecureAnswerItem', a.secureAnswerItem, "One answer of secureRequest (spec 3): the customer API's answer, or why the request got none."],
];

const KEYWORDS = ['type', 'anyOf', 'oneOf', 'allOf', '$ref', 'enum', 'const', 'properties', 'items', 'not'];
const NAMED = '#named/';

/**
 * Readies zod's JSON Schema for json-schema-to-typescript: a node that says nothing of its type (z.unknown())
 * is `unknown`, not an object; a reference to another generated type is that type's name.
 */
function prepared(node) {
  if (Array.isArray(node)) return node.map(prepared);
  if (node === null || typeof node !== 'object') return node;
  if (typeof node.$ref === 'string' && node.$ref.startsWith(NAMED)) {
    return { tsType: node.$ref.slice(NAMED.length), ...(node.description ? { description: node.description } : {}) };
  }
  if (!KEYWORDS.some((keyword) => keyword in node)) return { ...node, tsType: 'unknown' };
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => [
      key,
      key === 'properties' ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, prepared(v)])) : prepared(value),
    ]),
  );
}

async function generate() {
  const answers = await loadAnswers();
  const { z } = await import(pathToFileURL(path.join(ROOT, 'node_modules', 'zod', 'index.js')).href);
  const types = typesOf(answers);
  // One registry: a schema used inside another is a reference to its name, recursion included (TicketAction).
  const registry = z.registry();
  for (const [name, schema] of types) {
    if (!schema) throw new Error(`schemas/answers.ts and stored-ticket.ts export no schema for ${name}`);
    registry.add(schema, { id: name });
  }
  const { schemas } = z.toJSONSchema(registry, { io: 'output', unrepresentable: 'any', uri: (id) => `${NAMED}${id}` });
  if (schemas.__shared) throw new Error(`unnamed shared schemas: ${Object.keys(schemas.__shared.$defs ?? {}).join(', ')}; name them in typesOf`);
  const parts = [
    '// Generated by `npm run answer-types` (scripts/answer-types.mjs) from the schemas of schemas/answers.ts and stored-ticket.ts. Do not edit.',
    '',
  ];
  for (const [name, , about] of types) {
    const { $schema: _s, $id: _id, description, ...json } = schemas[name];
    const text = await compile({ ...prepared(json), title: name, description: about ?? description }, name, {
      bannerComment: '',
      format: false,
      additionalProperties: false,
      unknownAny: true,
    });
    parts.push(text.trim(), '');
  }
  return parts.join('\n');
}

function formatted(text) {
  const biome = path.join(ROOT, 'node_modules', '.bin', 'biome');
  const result = spawnSync(biome, ['format', '--stdin-file-path', OUT], { input: text, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`biome format failed: ${result.stderr}`);
  return result.stdout;
}

const text = formatted(await generate());
if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(OUT, 'utf8');
  } catch {}
  if (current !== text) {
    console.error('schemas/answer-types.generated.ts is out of date with schemas/answers.ts: run npm run answer-types');
    process.exit(1);
  }
  console.log('answer types: up to date');
} else {
  writeFileSync(OUT, text);
  console.log(`wrote ${path.relative(ROOT, OUT)}`);
}
