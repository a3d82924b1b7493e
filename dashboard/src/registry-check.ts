/**
 * The registry's own check of a ticket definition (schemas/ticket.ts, which PUT /tickets/{ticket_id}
 * runs), run in the page: a definition the registry refuses is shown with the server's message, naming
 * the field, before any request.
 */
import type { FieldIssue } from '../../schemas/field-issue';
import { validateTicketRegistration, type RegistrationLookups } from '../../schemas/ticket';

/**
 * Whether a secret, mail template or newsletter exists is the project's stored data, which the page
 * does not hold: here every name is taken as present, and the server refuses a missing one.
 */
const existenceLeftToServer: RegistrationLookups = {
  secretExists: async () => true,
  templateExists: async () => true,
  newsletterExists: async () => true,
};

/**
 * The registry's refusal of `definition` registered as `ticketId` at `now`, or null when the page
 * finds none and the server has the last word. The check is only an early answer: when it fails
 * itself (a definition nested thousands of levels deep overflows its walk, where the server refuses
 * by the nesting limit before walking), the definition goes to the server as well.
 */
export async function registryRefusal(ticketId: string, definition: unknown, now = Date.now()): Promise<FieldIssue | null> {
  try {
    const result = await validateTicketRegistration(ticketId, definition, existenceLeftToServer, now);
    return result.ok ? null : result.issue;
  } catch {
    return null;
  }
}
