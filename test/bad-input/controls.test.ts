/**
 * The control for every table: the valid request each family's cases break in exactly one way is
 * accepted, so a refusal in the tables is about the one thing broken, not about a broken base.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { BadInputCase } from './case';
import { send } from './runner';
import { ROUTE_LABELS } from './routes';
import { consumeControls } from './tables/consume';
import { forwardControls } from './tables/forward';
import { mailControls } from './tables/mail';
import { mcpControls } from './tables/mcp';
import { projectControls } from './tables/projects';
import { realtimeControls } from './tables/realtime';
import { secretsAndUsersControls } from './tables/secrets-and-users';
import { ticketControls } from './tables/tickets';
import { ticketReplayControls } from './tables/ticket-replays';
import { alertControls } from './tables/alerts';
import { metricsControls } from './tables/metrics';
import { ticketEventControls } from './tables/ticket-events';
import { forwardEventControls } from './tables/forward-events';
import { buildWorld, type World } from './world';

// In an order where each finds what it needs: consumptions before the tickets change, the ticket (which
// names the secret key, template and newsletter) before those are deleted, the project change (it
// disables the project) last.
const controls: BadInputCase[] = [
  ...forwardControls(),
  ...realtimeControls(),
  ...consumeControls(),
  ...ticketReplayControls(),
  ...alertControls(),
  ...metricsControls(),
  ...ticketEventControls(),
  ...forwardEventControls(),
  ...ticketControls(),
  ...secretsAndUsersControls(),
  ...mailControls(),
  ...mcpControls(),
  ...projectControls(),
];

let world: World;
beforeAll(async () => {
  world = await buildWorld();
});

describe('the valid requests the bad-input tables are made from', () => {
  for (const control of controls) {
    it(`${ROUTE_LABELS[control.route]}: ${control.input} is accepted (${control.expect.status})`, async () => {
      const res = await send(world, control);
      expect(res.status, res.text.slice(0, 400)).toBe(control.expect.status);
    });
  }
});
