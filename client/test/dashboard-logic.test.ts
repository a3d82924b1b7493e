import { describe, expect, it } from 'vitest';
import { byteLength, definitionOf, tooLargeMessage, MAX_DEFINITION_BYTES } from '../../dashboard/src/logic/definition';
import { getAt, joinSegments, nearestShownPath, parsePath, refusedField, setAt } from '../../dashboard/src/logic/json-path';
import { moveReqAnswersUnderBody } from '../../dashboard/src/logic/legacy';
import { lineDiff, sortedJson } from '../../dashboard/src/logic/line-diff';
import { looseText, parseLoose } from '../../dashboard/src/logic/loose-value';
import { placeholdersOf } from '../../dashboard/src/logic/placeholders';
import { scheduleFacts } from '../../dashboard/src/logic/ticket-stats';
import type { OwnerLogRow } from '../../schemas/listings';
import type { TicketAction } from '../../schemas/ticket-types';

// The dashboard's pure parts (dashboard/src/logic/), in Node: no browser, no Worker.

describe('field paths of the dashboard', () => {
  it('parse and join back to the path the registry writes, quoted keys included', () => {
    for (const path of [
      'actions[0].exe.url',
      'condition.body[2].value',
      'actions[1].exe.headers["X-Id"]',
      'actions[0].exe.headers["a.b\\"c"]',
      'description',
    ]) {
      const segments = parsePath(path);
      expect(segments, path).not.toBeNull();
      expect(joinSegments(segments!)).toBe(path);
    }
    expect(parsePath('actions[x]')).toBeNull();
  });

  it('read the field a refusal names from its detail.field, never from its message', () => {
    expect(refusedField({ field: 'actions[0].exe.url' })).toBe('actions[0].exe.url');
    expect(refusedField({ field: 'from' })).toBe('from');
    expect(refusedField(undefined)).toBe('');
    expect(refusedField({})).toBe('');
  });

  it('land a refusal on the nearest shown input: the field, else its closest ancestor with one', () => {
    const shown = new Set(['actions[0].exe.url', 'actions[0].exe.headers']);
    expect(nearestShownPath('actions[0].exe.url', shown)).toBe('actions[0].exe.url');
    expect(nearestShownPath('actions[0].exe.headers["Host"]', shown)).toBe('actions[0].exe.headers');
    expect(nearestShownPath('actions[0].exe.colour', shown)).toBeNull();
  });

  it('set a value without touching the original; undefined removes the member', () => {
    const before = { actions: [{ act: 'req', exe: { url: 'a', method: 'GET' } }] };
    const after = setAt(before, ['actions', 0, 'exe', 'method'], undefined);
    expect(after).toEqual({ actions: [{ act: 'req', exe: { url: 'a' } }] });
    expect(before.actions[0].exe.method).toBe('GET');
    expect(getAt(setAt({}, ['a', 0, 'b'], 1), ['a', 0, 'b'])).toBe(1);
  });
});

describe('a value typed where text or another JSON value may stand', () => {
  it('round-trips: what an input shows parses back to the same value', () => {
    for (const value of ['abc', '5', 'true', '', '"q"', 5, true, null, ['a', 1], { a: 1 }, '${body[x]}']) {
      expect(parseLoose(looseText(value)), JSON.stringify(value)).toEqual(value);
    }
    expect(parseLoose('')).toBeUndefined();
  });
});

describe('a legacy ticket opened in the dashboard (spec 9.2, docs/migrating.md)', () => {
  it("moves the references to a req's answer under [body] in its Then chain only, leaving escaped text and other chains alone", () => {
    const actions: TicketAction[] = [
      {
        act: 'req',
        exe: {
          url: 'https://x.example/a',
          actions: [
            {
              act: 'cond',
              exe: {
                response: [
                  { key: 'method', operator: '=', value: 'POST' },
                  { key: 'order[id]', placeholder: 'ID' },
                ],
              },
            },
            { act: 'resp', exe: { body: { queued: '${response[method]}', whole: '${response}', escaped: '$${response[method]}' } } },
            {
              act: 'pstr',
              exe: { table: { name: 't', access_group: 1 }, data: '${response[a]}', actions: [{ act: 'resp', exe: { body: '${response[id]}' } }] },
            },
          ],
        },
        err: [{ act: 'resp', exe: { body: '${error[message]}' } }],
      },
    ];
    const [req] = moveReqAnswersUnderBody(actions);
    const then = req.exe.actions!;
    expect(then[0].exe.response).toEqual([
      { key: 'body[method]', operator: '=', value: 'POST' },
      { key: 'body[order][id]', placeholder: 'ID' },
    ]);
    expect(then[1].exe.body).toEqual({ queued: '${response[body][method]}', whole: '${response[body]}', escaped: '$${response[method]}' });
    expect(then[2].exe.data).toBe('${response[body][a]}');
    // The pstr's own Then chain reads the pstr's answer, not the req's.
    expect(then[2].exe.actions![0].exe.body).toBe('${response[id]}');
    expect(req.err).toEqual(actions[0].err);
  });

  it('is moved only for a legacy ticket saved before rules_version 2, and the count is never written back', () => {
    const listed = {
      ticket_id: 't',
      description: 'd',
      timestamp: 1,
      count: 3,
      condition: {},
      actions: [{ act: 'req' as const, exe: { url: 'https://x', actions: [{ act: 'resp' as const, exe: { body: '${response[a]}' } }] } }],
    };
    expect(definitionOf({ ...listed, legacy: true }).movedUnderBody).toBe(true);
    expect(definitionOf({ ...listed, legacy: true, rules_version: 2 }).movedUnderBody).toBe(false);
    expect(definitionOf(listed).definition).not.toHaveProperty('count');
  });
});

describe('what the dashboard shows', () => {
  it('refuses a definition over the registry body limit by its UTF-8 size', () => {
    expect(tooLargeMessage(MAX_DEFINITION_BYTES)).toBeNull();
    expect(tooLargeMessage(byteLength('é'.repeat(MAX_DEFINITION_BYTES / 2 + 1)))).toMatch(/^The definition is 1\.0 MiB; the registry takes at most 1 MiB/);
  });

  it("shows a retry schedule's attempts and, while the run waits, its next attempt; nothing for a run done at once", () => {
    const row = (continuation: Record<string, unknown>, next_attempt_at?: number) =>
      ({ description: JSON.stringify({ outcome: { ok: true }, continuation }), ...(next_attempt_at ? { next_attempt_at } : {}) }) as OwnerLogRow;
    expect(scheduleFacts(row({ attempts_total: 2, next_attempt_at: 99 }, 99))).toEqual({ attempts: 2, nextAt: 99 });
    expect(scheduleFacts(row({ attempts_total: 3, finished: 5 }))).toEqual({ attempts: 3 });
    expect(scheduleFacts(row({ attempts_total: 1, finished: 5 }))).toBeUndefined();
    expect(scheduleFacts(row({ finished: 5 }))).toBeUndefined();
  });

  it('diffs the plan line by line with sorted keys', () => {
    const diff = lineDiff(sortedJson({ b: 1, a: 2 }), sortedJson({ a: 2, b: 3 }));
    expect(diff.filter((l) => l.kind !== 'same')).toEqual([
      { kind: 'removed', text: '  "b": 1' },
      { kind: 'added', text: '  "b": 3' },
    ]);
  });
});

describe('mail placeholders the settings pages show', () => {
  it('are the distinct ${name} of subject and bodies in order of appearance; $${name} is a literal and ${1x} no name', () => {
    expect(placeholdersOf('Hi ${name}', '<p>${order_id} ${name}</p>', 'Write $${literal}, not ${1x} or ${a-b}; ${_ok2}')).toEqual(['name', 'order_id', '_ok2']);
    expect(placeholdersOf('', 'no placeholders here')).toEqual([]);
  });
});
