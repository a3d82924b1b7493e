import pc from 'picocolors';
import { describe, expect, it } from 'vitest';
import { checkBody } from '../src/check-body';
import { formatDeadLetter, formatDeadLetterReplay } from '../src/commands/dead-letters';
import { formatReplay, replayRequest, timeOf } from '../src/replay-format';
import { formatStats, sparkline, statsQuery } from '../src/commands/stats';
import { formatPausedDestination } from '../src/commands/destinations';
import { configPath, normalizeBaseUrl, resolveConfig } from '../src/config';
import { CliError, EXIT_FAILED, EXIT_USAGE, ServiceError, usageError } from '../src/errors';
import { formatFloodMinute, formatLogRow, outcomeOf } from '../src/logs-format';
import { formatSignatureDiagnosis, type SignatureDiagnosis } from '../src/signature-format';
import { LOOKBACK_MS, emptyFollowState, nextFrom, takeNew, type LogRow } from '../src/logs-follow';
import { errorReport } from '../src/messages';
import { colorEnabled, redact } from '../src/output';
import { countSteps, pruned, type Definition, type PlanStep } from '../src/plan/plan';
import { definitionDiff, renderPlan, stableJson } from '../src/plan/render';
import { duplicateIds, parseTicketFile } from '../src/plan/ticket-files';

const plain = pc.createColors(false);

function usageMessageOf(run: () => unknown): string {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(CliError);
    expect((err as CliError).exitCode).toBe(EXIT_USAGE);
    return (err as Error).message;
  }
  throw new Error('expected a usage error');
}

describe('config resolution', () => {
  it('SVC_CONFIG wins, then XDG_CONFIG_HOME, then ~/.config', () => {
    expect(configPath({ SVC_CONFIG: '/etc/x.json', XDG_CONFIG_HOME: '/xdg' }, '/home/a')).toBe('/etc/x.json');
    expect(configPath({ XDG_CONFIG_HOME: '/xdg' }, '/home/a')).toBe('/xdg/svc/config.json');
    expect(configPath({}, '/home/a')).toBe('/home/a/.config/svc/config.json');
    // A relative XDG_CONFIG_HOME is invalid per the XDG spec and ignored.
    expect(configPath({ XDG_CONFIG_HOME: 'rel' }, '/home/a')).toBe('/home/a/.config/svc/config.json');
  });

  it('SVC_URL and SVC_OWNER_KEY override the file, which is then not needed', () => {
    const file = JSON.stringify({ url: 'http://file', owner_key: 'ok_file', service_id: 's1' });
    expect(resolveConfig({ SVC_URL: 'http://env/', SVC_OWNER_KEY: 'ok_env' }, '/c.json', file)).toEqual({
      source: 'env',
      url: 'http://env',
      ownerKey: 'ok_env',
      serviceId: undefined,
    });
    expect(resolveConfig({}, '/c.json', file)).toEqual({ source: 'file', path: '/c.json', url: 'http://file', ownerKey: 'ok_file', serviceId: 's1' });
  });

  it('no env vars and no file tells to run svc login or set the env vars', () => {
    expect(usageMessageOf(() => resolveConfig({}, '/c.json', null))).toMatch(/svc login.*SVC_URL and SVC_OWNER_KEY/);
  });

  it('one env var without the other is a usage error naming the missing one', () => {
    expect(usageMessageOf(() => resolveConfig({ SVC_URL: 'http://x' }, '/c.json', null))).toMatch(/SVC_OWNER_KEY is not/);
  });

  it('a damaged config file is named and never echoed', () => {
    const message = usageMessageOf(() => resolveConfig({}, '/c.json', '{"owner_key":"ok_secret"'));
    expect(message).toContain('/c.json');
    expect(message).not.toContain('ok_secret');
    expect(usageMessageOf(() => resolveConfig({}, '/c.json', '{"url":"http://x","owner_key":"ok_1"}'))).toMatch(/no "service_id"/);
  });

  it('base urls are absolute http(s) without a trailing slash', () => {
    expect(normalizeBaseUrl('https://svc.example.com/')).toBe('https://svc.example.com');
    expect(normalizeBaseUrl('http://127.0.0.1:8787/base//')).toBe('http://127.0.0.1:8787/base');
    expect(usageMessageOf(() => normalizeBaseUrl('ftp://x'))).toMatch(/Not a base url/);
    expect(usageMessageOf(() => normalizeBaseUrl('localhost:8787 x'))).toMatch(/Not a base url/);
    expect(usageMessageOf(() => normalizeBaseUrl('https://u:p@x'))).toMatch(/user name or password/);
  });
});

describe('ticket files', () => {
  it('the id is the ticket_id field, else the file name without .json', () => {
    const named = parseTicketFile('t/a.json', '{"ticket_id":"hello","actions":[]}');
    const unnamed = parseTicketFile('t/other-one.json', '{"actions":[]}');
    expect(named.ok && named.ticket.ticketId).toBe('hello');
    expect(unnamed.ok && unnamed.ticket.ticketId).toBe('other-one');
  });

  it('a file that is not JSON is refused with its name', () => {
    const parsed = parseTicketFile('t/bad.json', '{"actions": [,]}');
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.problem).toMatchObject({ where: 't/bad.json', code: 'INVALID_JSON' });
  });

  it('a file that holds no object, or a ticket_id that is not a string, names the field', () => {
    const list = parseTicketFile('t/list.json', '[]');
    const id = parseTicketFile('t/id.json', '{"ticket_id": 3}');
    expect(!list.ok && list.problem.message).toMatch(/"\(root\)"/);
    expect(!id.ok && id.problem.message).toMatch(/"ticket_id"/);
  });

  it('two files with one ticket_id are a problem naming both files', () => {
    const tickets = ['t/a.json', 't/b.json', 't/c.json'].map((f, i) => ({ file: f, ticketId: i === 2 ? 'other' : 'same', body: {} }));
    const problems = duplicateIds(tickets);
    expect(problems).toHaveLength(1);
    expect(problems[0].where).toBe('t/b.json');
    expect(problems[0].message).toContain('t/a.json');
  });
});

const definition = (description: string): Definition => ({
  description,
  count: null,
  limit_per_user: false,
  time_to_live: null,
  condition: { method: 'POST' },
  actions: [],
});

describe('plan', () => {
  it('prune deletes the server tickets no file names, in id order', () => {
    expect(pruned(['z', 'a', 'kept'], ['kept'])).toEqual(['a', 'z']);
    expect(pruned(['kept'], ['kept', 'new'])).toEqual([]);
  });

  it('stable JSON sorts keys at every depth, so key order never reads as a change', () => {
    expect(stableJson({ b: 1, a: { d: 1, c: [{ y: 1, x: 2 }] } })).toBe(stableJson({ a: { c: [{ x: 2, y: 1 }], d: 1 }, b: 1 }));
  });

  it('a changed definition shows the removed and added lines only around the change', () => {
    const lines = definitionDiff(definition('old text'), definition('new text'), plain);
    expect(lines).toContain('-  "description": "old text",');
    expect(lines).toContain('+  "description": "new text",');
    expect(lines[0]).toMatch(/^@@ -\d+,\d+ \+\d+,\d+ @@$/);
    expect(definitionDiff(definition('same'), definition('same'), plain)).toEqual([]);
  });

  it('the rendered plan counts each kind and lists each ticket with its file', () => {
    const steps: PlanStep[] = [
      { change: 'create', ticket_id: 'a', file: 't/a.json', current: null, proposed: definition('a') },
      { change: 'update', ticket_id: 'b', file: 't/b.json', current: definition('b0'), proposed: definition('b1') },
      { change: 'none', ticket_id: 'c', file: 't/c.json', current: definition('c'), proposed: definition('c') },
      { change: 'delete', ticket_id: 'd', file: null, current: {}, proposed: null },
    ];
    expect(countSteps(steps)).toEqual({ create: 1, update: 1, none: 1, delete: 1 });
    const text = renderPlan(steps, plain).join('\n');
    expect(text).toMatch(/^Plan: 1 to create, 1 to change, 1 unchanged, 1 to delete \(4 tickets\)\./);
    expect(text).toMatch(/\+ create +a +t\/a\.json/);
    expect(text).toMatch(/~ change +b +t\/b\.json\n.*@@/);
    expect(text).toContain('+  "description": "b1",');
    expect(text).toMatch(/= unchanged +c +t\/c\.json/);
    expect(text).toMatch(/- delete +d/);
  });
});

describe('check request', () => {
  it('headers, repeated query names, the user and the ip become the check body', () => {
    expect(checkBody({ method: 'get', header: ['X-Sig: abc:def'], query: ['a=1', 'a=2', 'b=x=y'], user: 'u1', ip: '203.0.113.9' })).toEqual({
      method: 'GET',
      headers: { 'X-Sig': 'abc:def' },
      query: { a: ['1', '2'], b: 'x=y' },
      user_id: 'u1',
      ip: '203.0.113.9',
    });
  });

  it('data is sent as the raw body text, byte for byte (a signature covers exactly it)', () => {
    expect(checkBody({ data: '{"event": "ping"}\n' })).toEqual({ body: '{"event": "ping"}\n' });
    expect(checkBody({ data: 'a=1&b=2' })).toEqual({ body: 'a=1&b=2' });
  });

  it('a method other than GET or POST, a header without a colon or a query without = is a usage error', () => {
    expect(usageMessageOf(() => checkBody({ method: 'PUT' }))).toMatch(/--method/);
    expect(usageMessageOf(() => checkBody({ header: ['nocolon'] }))).toMatch(/--header/);
    expect(usageMessageOf(() => checkBody({ query: ['=v'] }))).toMatch(/--query/);
  });
});

const row = (key: string, timestamp: number): LogRow => ({
  ticket_id: 't',
  log_key: key,
  consume_id: key,
  user_id: '',
  is_test: false,
  attempts: 1,
  timestamp,
  description: '{"outcome":{"ok":true}}',
});

describe('logs --follow', () => {
  it('prints each row once, oldest first, also a row listed late with an older time', () => {
    let { rows, state } = takeNew(emptyFollowState(), [row('b', 2000), row('a', 1000)]);
    expect(rows.map((r) => r.log_key)).toEqual(['a', 'b']);
    ({ rows, state } = takeNew(state, [row('c', 3000), row('b', 2000), row('late', 1500)]));
    expect(rows.map((r) => r.log_key)).toEqual(['late', 'c']);
    ({ rows, state } = takeNew(state, [row('c', 3000), row('late', 1500)]));
    expect(rows).toEqual([]);
  });

  it('polls from a window before the newest row, and forgets keys older than it', () => {
    const { state } = takeNew(emptyFollowState(), [row('old', 1), row('new', 10 * LOOKBACK_MS)]);
    expect(nextFrom(state)).toBe(9 * LOOKBACK_MS);
    expect([...state.seen.keys()]).toEqual(['new']);
  });

  it('a row is ok only when its outcome says so; a failure shows its code and message', () => {
    expect(outcomeOf({ description: '{"outcome":{"ok":true}}' })).toEqual({ ok: true, text: 'ok' });
    expect(outcomeOf({ description: '{"outcome":{"ok":false,"code":"CONDITION_FAILED","message":"no"}}', failed: true })).toEqual({
      ok: false,
      text: 'CONDITION_FAILED: no',
    });
  });
});

describe('output', () => {
  it('colours only on a TTY with NO_COLOR unset or empty', () => {
    expect(colorEnabled({}, true)).toBe(true);
    expect(colorEnabled({}, false)).toBe(false);
    expect(colorEnabled({}, undefined)).toBe(false);
    expect(colorEnabled({ NO_COLOR: '1' }, true)).toBe(false);
    expect(colorEnabled({ NO_COLOR: '' }, true)).toBe(true);
  });

  it('masks every copy of a registered secret', () => {
    expect(redact('key ok_abc and ok_abc', ['ok_abc'])).toBe('key *** and ***');
  });

  it('errors report one message (JSON with --json) and their exit code; service refusals exit 1, usage 2', () => {
    const refused = errorReport(new ServiceError(400, 'INVALID_PARAMETER', 'Invalid "x": no.'), false);
    expect(refused).toEqual({ text: 'svc: INVALID_PARAMETER: Invalid "x": no.\n', exitCode: EXIT_FAILED });
    const usage = errorReport(usageError('2 files are refused.', [{ where: 't/a.json', code: 'INVALID_JSON', message: 'not JSON' }]), true);
    expect(JSON.parse(usage.text)).toEqual({
      error: { message: '2 files are refused.', problems: [{ where: 't/a.json', code: 'INVALID_JSON', message: 'not JSON' }] },
    });
    expect(usage.exitCode).toBe(EXIT_USAGE);
    const crash = errorReport(new TypeError('boom'), false);
    expect(crash).toEqual({ text: 'svc: boom\n', exitCode: EXIT_FAILED });
  });
});

describe('svc destinations (issue 36 item 6)', () => {
  it('prints a paused destination with its state, caller, failures and probe time in UTC', () => {
    const since = Date.UTC(2026, 10, 29, 9, 0, 0);
    const item = { origin: 'https://api.example.com', caller: 'visitor:a', failures: 5, since, next_probe_at: since + 90_000 };
    expect(formatPausedDestination({ ...item, state: 'open' })).toBe(
      'https://api.example.com  open  caller=visitor:a  failures=5  since 2026-11-29T09:00:00Z  next probe 2026-11-29T09:01:30Z',
    );
    expect(formatPausedDestination({ ...item, state: 'half-open' })).toContain(
      'half-open  caller=visitor:a  failures=5  since 2026-11-29T09:00:00Z  probe out until 2026-11-29T09:01:30Z',
    );
  });

  it('names the ticket whose runs a paused destination holds, in place of a caller', () => {
    const since = Date.UTC(2026, 10, 29, 9, 0, 0);
    const item = { origin: 'https://api.example.com', ticket: 'orders', state: 'open' as const, failures: 5, since, next_probe_at: since + 90_000 };
    expect(formatPausedDestination(item)).toBe(
      'https://api.example.com  open  ticket=orders  failures=5  since 2026-11-29T09:00:00Z  next probe 2026-11-29T09:01:30Z',
    );
  });
});

describe('svc dead-letters (issue 36 item 3)', () => {
  const failedAt = Date.UTC(2026, 10, 29, 9, 0, 0);
  const item = {
    id: '1764406800000:abcdefabcdefabcd',
    kind: 'forward' as const,
    what: 'POST https://api.example.com/v1/charge',
    created: failedAt - 5000,
    failed_at: failedAt,
    reason: 'retry_window_ended' as const,
    attempts: 3,
    waits: [],
    forward: { caller: 'visitor:a', method: 'POST' as const, url: 'https://api.example.com/v1/charge', queue_name: 'q', full_id: 'x' },
  };

  it('prints when it failed in UTC, why, the last status, the sends, the caller and what', () => {
    expect(formatDeadLetter({ ...item, status_code: 429 })).toBe(
      '2026-11-29T09:00:00Z  retry_window_ended  status=429  attempts=3  caller=visitor:a  POST https://api.example.com/v1/charge  id=1764406800000:abcdefabcdefabcd',
    );
  });

  it('prints the error code of a dead letter that got no answer', () => {
    expect(formatDeadLetter({ ...item, reason: 'timeout', error: { code: 'TIMEOUT', message: 'timed out' } })).toContain('timeout  error=TIMEOUT  attempts=3');
  });
});

describe('svc replay and dead-letters --replay (extension, issue 36 items 3 and 4)', () => {
  it('a time is milliseconds or an ISO date; anything else is a usage error naming the flag', () => {
    expect(timeOf('1764406800000', '--from')).toBe(1764406800000);
    expect(timeOf('2026-11-29T09:00:00Z', '--from')).toBe(Date.UTC(2026, 10, 29, 9));
    expect(timeOf('2026-11-29', '--to')).toBe(Date.UTC(2026, 10, 29));
    expect(usageMessageOf(() => timeOf('yesterday', '--to'))).toMatch(/^--to must be milliseconds since the epoch or an ISO date/);
    expect(usageMessageOf(() => timeOf('2026-13-45', '--from'))).toContain('"2026-13-45"');
  });

  it('the options become the request: ids split on commas, times as ms, flags only when given', () => {
    expect(replayRequest({})).toEqual({ filter: {} });
    expect(
      replayRequest({
        ids: 'abc12, def34,',
        from: '2026-11-29',
        to: '1764406800000',
        outcome: 'any',
        code: 'REQUEST_FAILED',
        perMinute: '120',
        full: true,
        dryRun: true,
      }),
    ).toEqual({
      filter: { consume_ids: ['abc12', 'def34'], from: Date.UTC(2026, 10, 29), to: 1764406800000, outcome: 'any', code: 'REQUEST_FAILED' },
      per_minute: 120,
      full: true,
      dry_run: true,
    });
    expect(replayRequest({ deadLetters: true })).toEqual({ filter: { dead_letters: true } });
    for (const bad of ['0', '601', '1.5', 'fast'])
      expect(usageMessageOf(() => replayRequest({ perMinute: bad }))).toContain('--per-minute must be a whole number from 1 to 600');
  });

  it('a replay is one line: id, state, done of total, outcomes with why skipped, pace and start', () => {
    const replay = {
      id: 3,
      state: 'running' as const,
      created_at: Date.UTC(2026, 10, 29, 9),
      finished_at: null,
      total: 10,
      filter: { outcome: 'failed' },
      full: true,
      per_minute: 60,
      progress: { done: 4, succeeded: 2, failed: 1, skipped: 1, skipped_by: { not_kept: 1 }, cursor: null, failures: [] },
    };
    expect(formatReplay(replay)).toBe(
      'replay=3  running  done=4/10  succeeded=2  failed=1  skipped=1 (not_kept=1)  per_minute=60 full  started 2026-11-29T09:00:00Z',
    );
  });

  it("a dead letter's replay says whether it succeeded and whether it stays listed", () => {
    const head = { ticket_id: 't', replay_of: 'abc12', partial: true };
    expect(formatDeadLetterReplay({ ...head, ok: true, status: 200, body: 'ok' })).toBe(
      'Replayed abc12 from its failed action: answered 200; it is no longer a dead letter.',
    );
    expect(
      formatDeadLetterReplay({
        ...head,
        partial: false,
        ok: false,
        status: 502,
        error: { code: 'REQUEST_FAILED', message: 'The request failed.', stage: 'action' },
      }),
    ).toBe('Replayed abc12 whole: failed again with 502 (REQUEST_FAILED: The request failed.); it stays a dead letter.');
  });
});

describe('svc logs under a flood (issue 26 item 6)', () => {
  it('a minute the ticket was limited shows its refusals and the failures counted instead of kept', () => {
    expect(formatFloodMinute({ minute: Date.UTC(2026, 10, 26, 20, 1), limited: 3, sampled: 19_750 }, plain)).toBe(
      '2026-11-26T20:01:00.000Z  limited:  3+ refused (429)  19750 failures or dry runs counted, not kept',
    );
    expect(formatFloodMinute({ minute: Date.UTC(2026, 10, 26, 20, 2), limited: 1, sampled: 0 }, plain)).toBe(
      '2026-11-26T20:02:00.000Z  limited:  1+ refused (429)',
    );
  });

  it('a summary entry reads "N more failed with CODE (field) in this minute", not as one failure', () => {
    const text = '50 more failed with CONDITION_FAILED (signature) in this minute';
    const row = {
      ticket_id: 't',
      consume_id: 'abc:MORE',
      log_key: 'abc:MORE',
      user_id: '',
      is_test: false,
      timestamp: Date.UTC(2026, 10, 26, 20, 1, 5),
      description: JSON.stringify({ outcome: { ok: false, code: 'CONDITION_FAILED', message: text } }),
      failed: true,
      attempts: 1,
      sampled: { more: 50, text, code: 'CONDITION_FAILED', field: 'signature', minute_from: 0, minute_to: 59_999, last_at: 0, example: {} },
    } as LogRow;
    expect(formatLogRow(row, plain)).toBe(`2026-11-26T20:01:05.000Z  abc:MORE  ${text} (counted, not kept)`);
  });
});

describe('svc logs and the retry schedule (issue 36 item 1)', () => {
  const base = { ticket_id: 't', consume_id: 'abc', log_key: 'abc', user_id: '', is_test: false, timestamp: Date.UTC(2026, 10, 29, 9), attempts: 1 };
  it('a run after resp waiting for its next attempt shows the attempts so far and when the next one starts', () => {
    const continuation = { attempts: [], attempts_total: 2, next_attempt_at: Date.UTC(2026, 10, 29, 9, 1) };
    const row = { ...base, description: JSON.stringify({ outcome: { ok: true }, continuation }), next_attempt_at: continuation.next_attempt_at } as LogRow;
    expect(formatLogRow(row, plain)).toBe('2026-11-29T09:00:00.000Z  abc  ok  scheduled attempts=2  retrying: next attempt at 2026-11-29T09:01:00.000Z');
  });

  it('a run done at its first attempt shows no schedule facts', () => {
    const row = { ...base, description: JSON.stringify({ outcome: { ok: true }, continuation: { attempts_total: 1, finished: 1 } }) } as LogRow;
    expect(formatLogRow(row, plain)).toBe('2026-11-29T09:00:00.000Z  abc  ok');
  });
});

describe('svc logs and idempotency (extension)', () => {
  it('a duplicate answered with the first answer names the consumption it repeats; another row names none', () => {
    const row = (description: string) =>
      ({
        ticket_id: 't',
        consume_id: 'def',
        log_key: 'def',
        user_id: '',
        is_test: false,
        timestamp: Date.UTC(2026, 10, 29, 9),
        description,
        attempts: 1,
      }) as LogRow;
    const duplicate = row(JSON.stringify({ outcome: { ok: true }, duplicate_of: 'abc' }));
    expect(formatLogRow(duplicate, plain)).toBe('2026-11-29T09:00:00.000Z  def  ok  [duplicate of abc]');
    expect(formatLogRow(row(JSON.stringify({ outcome: { ok: true } })), plain)).toBe('2026-11-29T09:00:00.000Z  def  ok');
    expect(formatLogRow(row('not json'), plain)).toBe('2026-11-29T09:00:00.000Z  def  FAILED');
  });
});

describe('svc logs --signature: the diagnosis as lines', () => {
  const diagnosis: SignatureDiagnosis = {
    ticket_id: 'hook',
    consume_id: 'c1',
    received_at: 0,
    url_kept: true,
    signature: {
      config: { header: 'Stripe-Signature' },
      verified: false,
      result: 'the timestamp is missing, not a number, or outside the tolerance',
      trace: {
        source: { header: 'Stripe-Signature', found: true },
        items: ['t=100', 'v1=…'],
        captures: { timestamp: '100' },
        signature_candidates: 1,
        decoded_lengths: [32],
        timestamp: { value: '100', age_seconds: 3600, tolerance: 300, fresh: false },
      },
    },
    presets: { secretName: 'stripe', matching: [] },
  };

  it('says why it failed, each step reached, and that no preset verifies', () => {
    const lines = formatSignatureDiagnosis(diagnosis, plain);
    expect(lines[0]).toBe('not verified: the timestamp is missing, not a number, or outside the tolerance');
    expect(lines).toContain('  read:       header Stripe-Signature');
    expect(lines).toContain('  items:      "t=100" "v1=…"');
    expect(lines).toContain('  timestamp:  100, 3600 s old at arrival, tolerance 300 s (stale or missing)');
    expect(lines.at(-1)).toBe('no preset verifies this request with stripe');
  });

  it('names the presets that verify, and says when the ticket has no signature or the row kept no URL', () => {
    const lines = formatSignatureDiagnosis(
      { ...diagnosis, signature: null, url_kept: false, presets: { secretName: 'k', matching: [{ id: 'discord', name: 'Discord' }] } },
      plain,
    );
    expect(lines).toEqual([
      'hook has no signature condition.',
      '  (this row kept no URL: a signature over ${url} cannot verify)',
      'presets verifying with k: discord (Discord)',
    ]);
  });
});

describe('stats', () => {
  const zero = {
    consumptions: 0,
    succeeded: 0,
    failed: 0,
    failures_by_code: {},
    dry_runs: 0,
    duplicates: 0,
    retries: 0,
    dead_letters: 0,
    flood_refused: 0,
    latency_ms: null,
    req_latency_ms: null,
  };

  it('a range name asks its span and bucket; another name is a usage error', () => {
    expect(statsQuery('7d', 1_000_000_000_000)).toEqual({ from: String(1_000_000_000_000 - 7 * 86_400_000), to: '1000000000000', bucket: '6h' });
    expect(usageMessageOf(() => statsQuery('2w', 0))).toContain('--range takes one of 1h, 24h, 7d, 30d');
  });

  it('a sparkline is as high as its values, the highest full and zeros blank', () => {
    expect(sparkline([0, 4, 8])).toBe(' ▄█');
    expect(sparkline([0, 0])).toBe('  ');
  });

  it('prints the totals with the failure rate, failures by code (most first) and percentiles', () => {
    const totals = { ...zero, consumptions: 4, succeeded: 3, failed: 1, failures_by_code: { A: 1 }, latency_ms: { p50: 5, p95: 9, p99: 9 } };
    const lines = formatStats('hook', '24h', { from: 0, to: 1, bucket_ms: 3_600_000, points: [{ start: 0, ...totals }], totals });
    expect(lines[0]).toBe(
      'hook, last 24h: 4 consumptions, 3 ok, 1 failed (25.0%); 0 dry runs, 0 duplicates, 0 retries, 0 dead letters, 0 refused by flood control',
    );
    expect(lines[1]).toBe('failures by code: A 1');
    expect(lines[2]).toBe('latency: p50 5 ms, p95 9 ms, p99 9 ms; req: none timed');
  });
});
