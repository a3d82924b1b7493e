import type { ActionListingRow } from '../../schemas/listings';
import type { Colors } from './output';
import type { LogRow } from './logs-follow';

/** One action row of a consumption (owner listing). */
export type ActionRow = ActionListingRow;

const time = (ms: number) => new Date(ms).toISOString();

/** The outcome a log row's description records: ok, or the code and message of the failure. */
export function outcomeOf(row: Pick<LogRow, 'description' | 'failed'>): { ok: boolean; text: string } {
  let outcome: { ok?: unknown; code?: unknown; message?: unknown } | undefined;
  try {
    outcome = (JSON.parse(row.description) as { outcome?: typeof outcome }).outcome;
  } catch {
    outcome = undefined;
  }
  const ok = outcome?.ok === true && !row.failed;
  if (ok) return { ok, text: 'ok' };
  const code = typeof outcome?.code === 'string' ? outcome.code : 'FAILED';
  return { ok, text: typeof outcome?.message === 'string' ? `${code}: ${outcome.message}` : code };
}

/** The attempts of a run after resp that its ticket's retry schedule tried more than once (extension), from the description. */
function scheduledAttempts(row: Pick<LogRow, 'description'>): number | undefined {
  try {
    const total = (JSON.parse(row.description) as { continuation?: { attempts_total?: unknown } }).continuation?.attempts_total;
    return typeof total === 'number' && total > 1 ? total : undefined;
  } catch {
    return undefined;
  }
}

/** The first consumption a duplicate answered for (extension: idempotency), as its description records it. */
export function duplicateOf(row: Pick<LogRow, 'description'>): string | undefined {
  try {
    const first = (JSON.parse(row.description) as { duplicate_of?: unknown }).duplicate_of;
    return typeof first === 'string' ? first : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `<time>  <consume_id>  ok|<CODE: message>` with the dry-run mark, the user, retry and duplicate facts (a
 * run after resp waiting for its schedule's next attempt says when); a summary of counted entries says how many.
 */
export function formatLogRow(row: LogRow, color: Colors): string {
  const { ok, text } = outcomeOf(row);
  const shown = row.sampled ? `${row.sampled.text} (counted, not kept)` : text;
  const parts = [color.dim(time(row.timestamp)), row.consume_id, row.sampled ? color.yellow(shown) : ok ? color.green(shown) : color.red(shown)];
  if (row.check) parts.push(color.cyan('[dry run]'));
  if (row.user_id) parts.push(`user=${row.user_id}`);
  if (row.attempts !== undefined && row.attempts > 1) parts.push(`attempts=${row.attempts}`);
  const scheduled = scheduledAttempts(row);
  if (scheduled !== undefined) parts.push(`scheduled attempts=${scheduled}`);
  if (row.next_attempt_at !== undefined) parts.push(color.yellow(`retrying: next attempt at ${time(row.next_attempt_at)}`));
  const first = duplicateOf(row);
  if (first) parts.push(color.cyan(`[duplicate of ${first}]`));
  if (row.warning) parts.push(color.yellow(`warning: ${row.warning}`));
  return parts.join('  ');
}

const brief = (value: unknown) => {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
};

/** One action row: its place in the chain, its kind, then what it sent, received or failed with. */
export function formatActionRow(row: ActionRow, color: Colors): string[] {
  const head = [color.dim(time(row.timestamp)), `#${row.seq}`, row.path, row.act];
  if (row.attempts > 1) head.push(`attempts=${row.attempts}`);
  if (row.error !== undefined) head.push(color.red('failed'));
  const lines = [head.join('  ')];
  if (row.sent !== undefined) lines.push(`    sent:     ${brief(row.sent)}`);
  if (row.received !== undefined) lines.push(`    received: ${brief(row.received)}`);
  if (row.error !== undefined) lines.push(color.red(`    error:    ${brief(row.error)}`));
  if (row.warning) lines.push(color.yellow(`    warning:  ${row.warning}`));
  return lines;
}

/** One minute in which a ticket was limited (GET …/tickets/{id}/flood). */
export interface FloodMinute {
  minute: number;
  limited: number;
  sampled: number;
}

/** `<minute>  limited: N refused (429), M failures counted, not kept`: what a ticket under a flood went through. */
export function formatFloodMinute(m: FloodMinute, color: Colors): string {
  const parts = [color.dim(time(m.minute)), color.yellow('limited:')];
  if (m.limited > 0) parts.push(`${m.limited}+ refused (429)`);
  if (m.sampled > 0) parts.push(`${m.sampled} failures or dry runs counted, not kept`);
  return parts.join('  ');
}
