/** The registration body the editor holds, made from a listed ticket, and the size the registry takes. */
import type { ListedTicket } from '../../../schemas/listings';
import { moveReqAnswersUnderBody, needsBodyMove } from './legacy';

/** The registry's body limit (src/limits.ts MAX_BODY_BYTES): a larger definition is refused before sending. */
export const MAX_DEFINITION_BYTES = 1_048_576;

export const byteLength = (text: string) => new TextEncoder().encode(text).length;

export function tooLargeMessage(bytes: number): string | null {
  if (bytes <= MAX_DEFINITION_BYTES) return null;
  return `The definition is ${(bytes / 1_048_576).toFixed(1)} MiB; the registry takes at most 1 MiB (${MAX_DEFINITION_BYTES.toLocaleString('en')} bytes). Nothing was sent.`;
}

export const NEW_DEFINITION = { description: '', condition: { method: 'POST' }, actions: [] };

/**
 * What saving a listed ticket back would register. The count is left out: a blank count keeps the
 * registered one (and what is left of it), where writing the listed count, which is what is left, would reset it.
 */
export function definitionOf(ticket: ListedTicket): { definition: Record<string, unknown>; movedUnderBody: boolean } {
  const movedUnderBody = needsBodyMove(ticket);
  const definition: Record<string, unknown> = { description: ticket.description ?? '' };
  if (ticket.limit_per_user !== undefined) definition.limit_per_user = ticket.limit_per_user;
  if (ticket.time_to_live !== undefined) definition.time_to_live = ticket.time_to_live;
  definition.condition = ticket.condition ?? {};
  definition.actions = movedUnderBody ? moveReqAnswersUnderBody(ticket.actions ?? []) : (ticket.actions ?? []);
  return { definition, movedUnderBody };
}
