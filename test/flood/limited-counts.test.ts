/**
 * Issue 26 item 6: an owner sees when a ticket is being limited. Refusals (429) are counted in the isolate
 * and reach the ticket's object at most once a minute (docs/decisions.md), so a refused request costs no
 * Durable Object call of its own but the first; GET …/tickets/{id}/flood answers the counts per minute.
 */
import { describe, expect, it } from 'vitest';
import { countRefusal } from '../../src/rate-limits/refusal-counts';
import { call, createProject, registerTicket, type TestProject } from '../helpers/api';
import { eventually } from '../logs/log-helpers';
import { burst, consumeFrom, freshWindow, setFloodLimits } from './support';

const floodOf = (project: TestProject, ticketId: string, token = project.owner_key) =>
  call('GET', `/v1/projects/${project.service_id}/tickets/${ticketId}/flood`, { token });

describe('counting refusals without paying for them (issue 26 item 6)', () => {
  it('the first refusal at a ticket is handed on at once, the next ones of the minute are held in the isolate', () => {
    const t = 1_900_000 * 60_000;
    expect(countRefusal('svc|counted-unit', t)).toEqual([[t / 60_000, 1]]);
    for (let i = 1; i < 30; i++) expect(countRefusal('svc|counted-unit', t + i * 1_000)).toBeUndefined();
    // A minute after the last hand-over, everything held since goes, by minute.
    expect(countRefusal('svc|counted-unit', t + 60_000)).toEqual([
      [t / 60_000, 29],
      [t / 60_000 + 1, 1],
    ]);
  });

  it("a ticket's refusals show in its flood counts: the first at once, the rest of the minute held, so 30 refusals call its object once", async () => {
    const project = await createProject();
    await setFloodLimits(project, { per_caller_per_ticket: 50 });
    await registerTicket(project, 'limited', { actions: [] });
    await freshWindow();
    const statuses = await burst(80, () => consumeFrom(project, 'limited', '192.0.2.77'));
    expect(statuses.filter((s) => s === 429)).toHaveLength(30);
    await eventually(async () => (await floodOf(project, 'limited')).json.minutes.length > 0);
    const { json } = await floodOf(project, 'limited');
    expect(json.ticket_id).toBe('limited');
    expect(json.minutes.reduce((n: number, m: { limited: number }) => n + m.limited, 0)).toBe(1);
    expect(json.minutes[0].minute % 60_000).toBe(0);
  });

  it('a ticket that does not exist keeps no counts, and only the owner reads them', async () => {
    const project = await createProject();
    await setFloodLimits(project, { per_caller_per_ticket: 50 });
    await freshWindow();
    await burst(60, () => consumeFrom(project, 'nothing-here', '192.0.2.78'));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await floodOf(project, 'nothing-here')).json.minutes).toEqual([]);
    expect((await floodOf(project, 'nothing-here', '')).status).toBe(401);
  });
});
