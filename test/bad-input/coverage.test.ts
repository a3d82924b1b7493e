/** The suite covers every route the Worker documents, and its test names are unique. */
import { describe, expect, it } from 'vitest';
import { servedRoutes } from '../../src/openapi/route';
import { app } from '../../src/router';
import { caseName } from './runner';
import { ROUTES_WITHOUT_INPUT, ROUTE_LABELS, routeKey } from './routes';
import { consumeCases } from './tables/consume';
import { forwardCases } from './tables/forward';
import { mailCases } from './tables/mail';
import { mcpCases } from './tables/mcp';
import { projectCases } from './tables/projects';
import { realtimeCases } from './tables/realtime';
import { secretsAndUsersCases } from './tables/secrets-and-users';
import { secureCases } from './tables/secure';
import { ticketCases } from './tables/tickets';
import { ticketReplayCases } from './tables/ticket-replays';
import { alertCases } from './tables/alerts';
import { metricsCases } from './tables/metrics';
import { ticketEventCases } from './tables/ticket-events';
import { forwardEventCases } from './tables/forward-events';

const ROUTES = servedRoutes(app);

const all = [
  ...projectCases(),
  ...secretsAndUsersCases(),
  ...mailCases(),
  ...ticketCases(),
  ...ticketReplayCases(),
  ...metricsCases(),
  ...ticketEventCases(),
  ...forwardEventCases(),
  ...consumeCases(),
  ...forwardCases(),
  ...realtimeCases(),
  ...secureCases(),
  ...mcpCases(),
  ...alertCases(),
];

describe('bad-input coverage', () => {
  it('every documented route with input has bad-input cases', () => {
    const covered = new Set(all.map((c) => c.route));
    const documented = ROUTES.map((r) => routeKey(r.method, r.path)).filter((key) => !ROUTES_WITHOUT_INPUT.includes(key));
    expect(documented.filter((key) => !covered.has(key))).toEqual([]);
  });

  it('every case names a documented route that has a label', () => {
    const documented = new Set(ROUTES.map((r) => routeKey(r.method, r.path)));
    expect(all.map((c) => c.route).filter((route) => !documented.has(route) || !ROUTE_LABELS[route])).toEqual([]);
  });

  it('every case has its own test name', () => {
    const names = all.map(caseName);
    expect(names.filter((name, i) => names.indexOf(name) !== i)).toEqual([]);
  });
});
