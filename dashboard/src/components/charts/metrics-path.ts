/** Where a ticket's or the project's metrics are read (GET …/tickets/{id}/metrics, GET …/metrics), under /v1/projects/{service_id}. */
export const metricsPath = (ticketId: string | undefined, query: string): string =>
  `${ticketId === undefined ? '' : `/tickets/${encodeURIComponent(ticketId)}`}/metrics?${query}`;
