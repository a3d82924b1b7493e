/** The routes the suite covers, keyed as the OpenAPI catalogue writes them, with the label a test name uses. */
const P = '/v1/projects/{service_id}';

export const ROUTE_LABELS: Record<string, string> = {
  'POST /v1/projects': 'POST project',
  'PATCH /v1/projects/{service_id}': 'PATCH project',
  [`POST ${P}/dev/users`]: 'POST dev user',
  [`GET ${P}/secrets`]: 'GET secrets',
  [`GET ${P}/secrets/{name}`]: 'GET secret',
  [`PUT ${P}/secrets/{name}`]: 'PUT secret',
  [`DELETE ${P}/secrets/{name}`]: 'DELETE secret',
  [`GET ${P}/mail-templates`]: 'GET mail templates',
  [`GET ${P}/mail-templates/{template_id}`]: 'GET mail template',
  [`PUT ${P}/mail-templates/{template_id}`]: 'PUT mail template',
  [`DELETE ${P}/mail-templates/{template_id}`]: 'DELETE mail template',
  [`GET ${P}/newsletters`]: 'GET newsletters',
  [`GET ${P}/newsletters/{group}/{message_id}`]: 'GET newsletter',
  [`PUT ${P}/newsletters/{group}/{message_id}`]: 'PUT newsletter',
  [`DELETE ${P}/newsletters/{group}/{message_id}`]: 'DELETE newsletter',
  [`GET ${P}/subscribers/{group}`]: 'GET subscribers',
  [`PUT ${P}/subscribers/{group}/{email}`]: 'PUT subscriber',
  [`DELETE ${P}/subscribers/{group}/{email}`]: 'DELETE subscriber',
  [`GET ${P}/mail-outbox`]: 'GET mail outbox',
  [`GET ${P}/newsletter-sends/{send_id}`]: 'GET newsletter send',
  [`GET ${P}/records`]: 'GET records',
  [`GET ${P}/records/{record_id}`]: 'GET record',
  [`PUT ${P}/tickets/{ticket_id}`]: 'PUT ticket',
  [`DELETE ${P}/tickets/{ticket_id}`]: 'DELETE ticket',
  [`GET ${P}/tickets`]: 'GET tickets',
  [`POST ${P}/tickets/{ticket_id}/clear-log`]: 'POST clear-log',
  [`GET ${P}/consumed`]: 'GET consumed',
  [`POST ${P}/forward`]: 'POST forward',
  [`GET ${P}/forward/request`]: 'GET forward request',
  [`DELETE ${P}/forward/request`]: 'DELETE forward request',
  [`POST ${P}/forward/request/withdraw`]: 'POST forward withdraw',
  [`POST ${P}/forward/request/finalize`]: 'POST forward finalize',
  [`GET ${P}/forward/queue`]: 'GET forward queue',
  [`GET ${P}/forward/history`]: 'GET forward history',
  'POST /tp/{service_id}/{ticket_id}': 'POST /tp',
  'GET /tg/{service_id}/{ticket_id}': 'GET /tg',
  'POST /tpa/{service_id}/{ticket_id}': 'POST /tpa',
  'GET /tpa/{service_id}/{ticket_id}': 'GET /tpa',
  'GET /publ/check/{service_id}/{owner_id}/{ticket_id}': 'GET /publ/check',
  'POST /publ/check/{service_id}/{owner_id}/{ticket_id}': 'POST /publ/check',
  'GET /publ/consume/{service_id}/{owner_id}/{ticket_id}': 'GET /publ/consume',
  'POST /publ/consume/{service_id}/{owner_id}/{ticket_id}': 'POST /publ/consume',
  'POST /auth/consume/{service_id}/{owner_id}/{ticket_id}': 'POST /auth/consume',
  'GET /auth/consume/{service_id}/{owner_id}/{ticket_id}': 'GET /auth/consume',
};

/** Routes with no input to get wrong: liveness and the OpenAPI document. */
export const ROUTES_WITHOUT_INPUT = ['GET /v1/health', 'GET /openapi.json'];

export const routeKey = (method: string, path: string) => `${method.toUpperCase()} ${path}`;
