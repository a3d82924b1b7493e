/// <reference types="vite/types/importMeta.d.ts" />
import { beforeAll, describe, expect, it } from 'vitest';
import { call, createProject, type TestProject } from './helpers/api';

/**
 * Every ```json block of docs/ and the README, registered as a new user would paste it. The HTML
 * comment right before a block says what it is:
 *   `<!-- example: NAME -->` (or none): a ticket, registered, then saved back as getTickets lists it;
 *   `<!-- example: signature NAME -->`: a stored condition.signature, registered and listed unchanged;
 *   `<!-- example: forward NAME -->`: a forwardRequest dispatch, sent as a dry run (check: true) that must
 *   find nothing to refuse;
 *   `<!-- example: legacy NAME -->`: a ticket as the previous rules saved it, imported, then saved back
 *   through the normal registration as listed; the block right after it, marked
 *   `<!-- example: legacy listing -->`, must be what getTickets lists (without ticket_id and times);
 *   `<!-- not a ticket: WHY -->`: anything else (an answer, an error body), not registered.
 */
const markdown: Record<string, string> = {
  ...import.meta.glob('/docs/**/*.md', { query: '?raw', import: 'default', eager: true }),
  ...import.meta.glob('/README.md', { query: '?raw', import: 'default', eager: true }),
};

type BlockKind = 'ticket' | 'signature' | 'forward' | 'legacy' | 'listing' | 'other';
interface JsonBlock {
  name: string;
  kind: BlockKind;
  json: any;
  /** For a legacy block: the listing block right after it, if any. */
  listing?: any;
}

function jsonBlocks(file: string, text: string): JsonBlock[] {
  const found = [...text.matchAll(/(?:<!--\s*(.*?)\s*-->\n)?```json\n([\s\S]*?)```/g)].map(([, marker = '', body], i): JsonBlock => {
    const kind: BlockKind = marker.startsWith('not a ticket')
      ? 'other'
      : marker.startsWith('example: signature ')
        ? 'signature'
        : marker.startsWith('example: forward ')
          ? 'forward'
          : marker === 'example: legacy listing'
            ? 'listing'
            : marker.startsWith('example: legacy ')
              ? 'legacy'
              : 'ticket';
    const name = `${file} #${i + 1}${marker ? ` (${marker})` : ''}`;
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch (error) {
      throw new Error(`${name} is not JSON: ${(error as Error).message}`);
    }
    return { name, kind, json };
  });
  found.forEach((block, i) => {
    if (block.kind === 'legacy' && found[i + 1]?.kind === 'listing') block.listing = found[i + 1].json;
  });
  return found;
}

const blocks = Object.entries(markdown).flatMap(([file, text]) => jsonBlocks(file, text));
const of = (kind: BlockKind) => blocks.filter((block) => block.kind === kind).map((block) => [block.name, block.json] as const);
const legacyBlocks = blocks.filter((block) => block.kind === 'legacy').map((block) => [block.name, block.json, block.listing] as const);

/** The secrets, mail templates and newsletters a ticket names, made in the project so registration finds them. */
async function provideNamedResources(project: TestProject, value: unknown): Promise<void> {
  const owner = { token: project.owner_key };
  const base = `/v1/projects/${project.service_id}`;
  const found: Promise<unknown>[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (node === null || typeof node !== 'object') return;
    const item = node as Record<string, any>;
    const secretName = item.secretName ?? item.secret;
    if (typeof secretName === 'string') found.push(call('PUT', `${base}/secrets/${secretName}`, { ...owner, body: { value: 'whsec_docs_example' } }));
    if (item.act === 'mail' && typeof item.exe?.template === 'string') {
      found.push(call('PUT', `${base}/mail-templates/${item.exe.template}`, { ...owner, body: { subject: 'Docs example' } }));
    }
    if (item.act === 'nlsd' && typeof item.exe?.newsletter === 'string') {
      found.push(call('PUT', `${base}/newsletters/${item.exe.group}/${item.exe.newsletter}`, { ...owner, body: { subject: 'Docs example' } }));
    }
    Object.values(item).forEach(walk);
  };
  walk(value);
  await Promise.all(found);
}

let project: TestProject;
beforeAll(async () => {
  project = await createProject();
});

const put = (ticketId: string, body: unknown) => call('PUT', `/v1/projects/${project.service_id}/tickets/${ticketId}`, { token: project.owner_key, body });
const listed = async (ticketId: string) =>
  (await call('GET', `/v1/projects/${project.service_id}/tickets?ticket_id=${ticketId}`, { token: project.owner_key })).json.list[0];

describe('every JSON block in docs/ and the README', () => {
  it('is found in the README and in docs/api.md and docs/signatures.md', () => {
    const files = new Set(blocks.map((block) => block.name.split(' ')[0]));
    expect([...files]).toEqual(expect.arrayContaining(['/README.md', '/docs/api.md', '/docs/signatures.md']));
  });

  let n = 0;
  it.each(of('ticket'))('%s registers as written and saves back as listed', async (_name, ticket) => {
    const ticketId = `docs-example-${++n}`;
    await provideNamedResources(project, ticket);
    const registered = await put(ticketId, ticket);
    expect(registered.json).toMatchObject({ ticket_id: ticketId, rules_version: 2 });
    expect(registered.status).toBe(201);

    const first = await listed(ticketId);
    const saved = await put(ticketId, first);
    expect(saved.status).toBe(200);
    expect({ ...(await listed(ticketId)), updated: first.updated }).toEqual(first);
  });

  it.each(legacyBlocks)('%s imports as a legacy ticket, lists as shown, and saves back through the normal registration', async (_name, ticket, listing) => {
    const ticketId = `docs-legacy-${++n}`;
    await provideNamedResources(project, ticket);
    const imported = await call('PUT', `/v1/projects/${project.service_id}/tickets/${ticketId}/legacy`, { token: project.owner_key, body: ticket });
    expect(imported.status).toBe(201);
    const { ticket_id: _id, timestamp: _t, updated: _u, ...shown } = await listed(ticketId);
    expect(shown.legacy).toBe(true);
    if (listing !== undefined) expect(shown).toEqual(listing);
    const { legacy: _legacy, ...definition } = shown;
    const saved = await put(ticketId, definition);
    expect(saved.status).toBe(200);
    expect(saved.json).toMatchObject({ legacy: false, rules_version: 2 });
  });

  it.each(of('forward'))('%s is a dispatch the service would send as written (dry run)', async (_name, dispatch) => {
    await provideNamedResources(project, dispatch);
    const res = await call('POST', `/v1/projects/${project.service_id}/forward`, { body: { ...dispatch, check: true } });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ check: true, outcome: 'send' });
  });

  it.each(of('signature'))('%s registers as a signature condition and is listed unchanged (the stored form)', async (_name, signature) => {
    const ticketId = `docs-signature-${++n}`;
    await provideNamedResources(project, signature);
    const registered = await put(ticketId, { condition: { signature }, actions: [] });
    expect(registered.json).toMatchObject({ ticket_id: ticketId });
    expect((await listed(ticketId)).condition.signature).toEqual(signature);
  });
});
