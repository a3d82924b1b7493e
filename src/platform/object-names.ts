/** The name of a ticket's Durable Object: one per project + ticket. */
export const ticketObjectName = (serviceId: string, ticketId: string): string => `${serviceId}/${ticketId}`;
