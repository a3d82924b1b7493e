/**
 * Extension (issue 36 item 4): a ticket's bulk replay by filter (outcome, error code, time range, or its
 * dead letters), at a pace: Count asks how many it matches (a dry run), Start runs it in the background,
 * and its progress is read every 2 s while it runs, with Cancel.
 */
import { useEffect, useState } from 'preact/hooks';
import type { BulkReplay as Replay } from '../../../schemas/listings';
import { cancelBulkReplay, errorText, getBulkReplay, listBulkReplays, startBulkReplay, type OwnerApi } from '../api';
import { ConfirmDialog } from './ConfirmDialog';
import { StatusLine, type Status } from './StatusLine';

const POLL_MS = 2000;
type Outcome = 'failed' | 'ok' | 'any';

/** A datetime-local value as ms, or undefined for none. */
const msOf = (local: string) => (local ? new Date(local).getTime() : undefined);

const progressText = (replay: Replay) => {
  const { done, succeeded, failed, skipped } = replay.progress;
  return `Replay ${replay.id}: ${done}/${replay.total} done, ${succeeded} succeeded, ${failed} failed, ${skipped} skipped, ${replay.state}.`;
};

export function BulkReplay({ api, ticketId }: { api: OwnerApi; ticketId: string }) {
  const [outcome, setOutcome] = useState<Outcome>('failed');
  const [code, setCode] = useState('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [deadLetters, setDeadLetters] = useState(false);
  const [perMinute, setPerMinute] = useState('60');
  const [full, setFull] = useState(false);
  const [status, setStatus] = useState<Status>(null);
  const [replay, setReplay] = useState<Replay | null>(null);
  const [confirming, setConfirming] = useState(false);

  // The latest replay of the ticket, so one still running shows its progress when the page opens.
  useEffect(() => {
    setReplay(null);
    listBulkReplays(api, ticketId)
      .then((answer) => setReplay(answer.list[0] ?? null))
      .catch((err) => setStatus({ text: errorText(err), error: true }));
  }, [ticketId]);
  const running = replay?.state === 'running';
  useEffect(() => {
    if (!running || !replay) return;
    const timer = setInterval(() => {
      getBulkReplay(api, ticketId, replay.id)
        .then(setReplay)
        .catch((err) => setStatus({ text: errorText(err), error: true }));
    }, POLL_MS);
    return () => clearInterval(timer);
  }, [running, replay?.id]);

  const request = (dryRun: boolean) => {
    const filter = {
      ...(deadLetters ? { dead_letters: true } : { outcome, ...(code.trim() ? { code: code.trim() } : {}) }),
      ...(from ? { from: msOf(from) } : {}),
      ...(to ? { to: msOf(to) } : {}),
    };
    return { filter, dry_run: dryRun, per_minute: Number(perMinute), ...(full ? { full } : {}) };
  };
  const count = async () => {
    try {
      const answer = await startBulkReplay(api, ticketId, request(true));
      if (answer.dry_run)
        setStatus({ text: `${answer.matched} ${answer.matched === 1 ? 'entry matches' : 'entries match'} (a replay takes at most ${answer.limit}).` });
    } catch (err) {
      setStatus({ text: errorText(err), error: true });
    }
  };
  const start = async () => {
    setConfirming(false);
    try {
      const answer = await startBulkReplay(api, ticketId, request(false));
      if (!answer.dry_run) {
        setReplay(answer.replay);
        setStatus({ text: `Replay ${answer.replay.id} started: ${answer.replay.total} entries at ${answer.replay.per_minute} a minute.` });
      }
    } catch (err) {
      setStatus({ text: errorText(err), error: true });
    }
  };
  const cancel = async () => {
    if (!replay) return;
    try {
      setReplay(await cancelBulkReplay(api, ticketId, replay.id));
    } catch (err) {
      setStatus({ text: errorText(err), error: true });
    }
  };

  return (
    <section class="bulk-replay" aria-labelledby="bulk-replay-title">
      <h3 id="bulk-replay-title">Bulk replay</h3>
      <p class="hint">
        Replays what the filter matches, oldest first, in the background. Actions that already succeeded in a consumption run again only with Full.
      </p>
      <form class="bulk-filters" onSubmit={(e) => (e.preventDefault(), void count())}>
        <div class="field inline">
          <input id="bulk-dead-letters" type="checkbox" checked={deadLetters} onChange={(e) => setDeadLetters(e.currentTarget.checked)} />
          <label for="bulk-dead-letters">Dead letters only</label>
        </div>
        <div class="field">
          <label for="bulk-outcome">Outcome</label>
          <select id="bulk-outcome" value={outcome} disabled={deadLetters} onChange={(e) => setOutcome(e.currentTarget.value as Outcome)}>
            <option value="failed">failed</option>
            <option value="ok">ok</option>
            <option value="any">any</option>
          </select>
        </div>
        <div class="field">
          <label for="bulk-code">Error code</label>
          <input id="bulk-code" value={code} disabled={deadLetters} placeholder="REQUEST_FAILED" onInput={(e) => setCode(e.currentTarget.value)} />
        </div>
        <div class="field">
          <label for="bulk-from">From</label>
          <input id="bulk-from" type="datetime-local" step="1" value={from} onChange={(e) => setFrom(e.currentTarget.value)} />
        </div>
        <div class="field">
          <label for="bulk-to">To</label>
          <input id="bulk-to" type="datetime-local" step="1" value={to} onChange={(e) => setTo(e.currentTarget.value)} />
        </div>
        <div class="field">
          <label for="bulk-per-minute">Per minute</label>
          <input id="bulk-per-minute" type="number" min="1" max="600" value={perMinute} onInput={(e) => setPerMinute(e.currentTarget.value)} />
        </div>
        <div class="field inline">
          <input id="bulk-full" type="checkbox" checked={full} onChange={(e) => setFull(e.currentTarget.checked)} />
          <label for="bulk-full">Full (run the actions that succeeded again)</label>
        </div>
        <div class="buttons">
          <button type="submit">Count</button>
          <button type="button" disabled={running} onClick={() => (full ? setConfirming(true) : void start())}>
            Start
          </button>
        </div>
      </form>
      <StatusLine id="bulk-replay-status" status={status} />
      {replay && (
        <div class="buttons">
          <p id="bulk-replay-progress" class="status" role="status">
            {progressText(replay)}
          </p>
          {running && (
            <button type="button" class="danger" onClick={() => void cancel()}>
              Cancel replay
            </button>
          )}
        </div>
      )}
      {confirming && (
        <ConfirmDialog
          title="Start a full bulk replay?"
          text="Every matching consumption runs its whole chain again, the actions that already succeeded included (requests sent again, rows written again)."
          confirmLabel="Start full replay"
          onConfirm={() => void start()}
          onCancel={() => setConfirming(false)}
        />
      )}
    </section>
  );
}
