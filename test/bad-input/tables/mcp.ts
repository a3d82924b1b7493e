/** The MCP server (POST /mcp): the owner key alone names the project; any other credential is 401 before the server reads the call. */
import type { BadInputCase, Target } from '../case';
import { OWNER_KEY_ONLY_CREDENTIALS, credentialCases, type CredentialRule } from '../credentials';
import { FRESH_TICKET } from '../world';

const mcp: Omit<Target, 'auth'> = { route: 'POST /mcp', headers: { accept: 'application/json, text/event-stream' } };
const unauthorized = { status: 401, code: 'UNAUTHORIZED' } as const;

/** Every credential but an owner key is 401 UNAUTHORIZED, as on GET /v1/owner (the same check); admins and other projects' users too. */
const MCP_CREDENTIALS: readonly CredentialRule[] = [
  ...OWNER_KEY_ONLY_CREDENTIALS,
  { auth: 'admin', input: 'a signed-in admin (access group 99)', expect: unauthorized },
  { auth: 'other-user', input: "an id token of another project's user", expect: unauthorized },
];

/** A call that would register the watched fresh ticket, had the credential been the owner key. */
const registerFresh = {
  json: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'register_ticket', arguments: { ticket_id: FRESH_TICKET, ticket: { actions: [] } } } },
};

export const mcpCases = (): BadInputCase[] => credentialCases(mcp, registerFresh, MCP_CREDENTIALS);

/** The valid call the cases above each break (controls.test.ts checks it is accepted). */
export const mcpControls = (): BadInputCase[] => [
  { ...mcp, auth: 'owner', input: 'a tools/call with the owner key', body: registerFresh, expect: { status: 200 } },
];
