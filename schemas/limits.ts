/** The sizes a ticket registration checks (spec 8); src/limits.ts re-exports them with the server's own. */
export const MAX_ACTIONS_PER_TICKET = 50;
export const MAX_MAIL_PLACEHOLDERS = 30;
export const MAX_DESCRIPTION = 500;
