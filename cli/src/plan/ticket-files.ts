import path from 'node:path';
import type { Problem } from '../errors';

/** One ticket read from a file: its id is its `ticket_id` field, else the file name without `.json`. */
export interface TicketFile {
  file: string;
  ticketId: string;
  /** The registration body, sent as written (a `ticket_id` in it must match, as PUT checks). */
  body: Record<string, unknown>;
}

export type Parsed = { ok: true; ticket: TicketFile } | { ok: false; problem: Problem };

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** A ticket file's text, checked for what the CLI itself needs; the rest is the registry's to judge. */
export function parseTicketFile(file: string, text: string): Parsed {
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (err) {
    return { ok: false, problem: { where: file, code: 'INVALID_JSON', message: `not JSON: ${(err as Error).message}` } };
  }
  if (!isObject(value)) return { ok: false, problem: { where: file, code: 'INVALID_FILE', message: 'Invalid "(root)": a ticket file holds one JSON object.' } };
  const field = value.ticket_id;
  if (field !== undefined && (typeof field !== 'string' || field === '')) {
    return {
      ok: false,
      problem: { where: file, code: 'INVALID_FILE', message: 'Invalid "ticket_id": must be a non-empty string (or absent: the file name is the id).' },
    };
  }
  const ticketId = typeof field === 'string' ? field : path.basename(file).replace(/\.json$/i, '');
  return { ok: true, ticket: { file, ticketId, body: value } };
}

/** Two files naming the same ticket: each pair is a problem, naming both files. */
export function duplicateIds(tickets: readonly TicketFile[]): Problem[] {
  const first = new Map<string, string>();
  const problems: Problem[] = [];
  for (const { file, ticketId } of tickets) {
    const earlier = first.get(ticketId);
    if (earlier === undefined) first.set(ticketId, file);
    else problems.push({ where: file, code: 'DUPLICATE_TICKET_ID', message: `ticket_id "${ticketId}" is also in ${earlier}: one file per ticket.` });
  }
  return problems;
}
