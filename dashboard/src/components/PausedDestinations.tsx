/**
 * Extension (issue 36 item 6): the project's paused destinations, origins whose circuit opened after
 * repeated failures. Queued requests sent with retry to them, and the runs of a ticket with a
 * retry_schedule, wait for a probe; nothing is dropped.
 */
import { useEffect, useState } from 'preact/hooks';
import type { PausedDestinations as Answer } from '../../../schemas/forward-rules';
import { errorText, listPausedDestinations, type OwnerApi } from '../api';
import { when } from './when';

/** Whose work a circuit holds: a forwarding caller, or a ticket's runs. */
const holderOf = (item: Answer['list'][number]): string => (item.ticket !== undefined ? `ticket ${item.ticket}` : (item.caller ?? ''));

export function PausedDestinations({ api }: { api: OwnerApi }) {
  const [list, setList] = useState<Answer['list'] | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const read = () =>
    listPausedDestinations(api)
      .then((answer) => (setList(answer.list), setFailure(null)))
      .catch((err) => setFailure(errorText(err)));
  useEffect(() => void read(), []);
  return (
    <section class="paused-destinations" aria-labelledby="paused-title">
      <h3 id="paused-title">Paused destinations</h3>
      <p class="hint">
        A destination that failed 5 times in a row (5xx, timeout, network error) within 10 minutes is paused: queued requests sent with retry to it wait, in
        order, and so do the attempts of a ticket's runs with a retry schedule, until a probe (one every 1 to 5 minutes) succeeds.
      </p>
      {failure && (
        <p class="status error" role="alert">
          {failure}
        </p>
      )}
      {list && list.length === 0 && <p class="hint">No paused destination.</p>}
      {list && list.length > 0 && (
        <table aria-label="Paused destinations">
          <thead>
            <tr>
              <th>Origin</th>
              <th>State</th>
              <th>Caller or ticket</th>
              <th>Failures</th>
              <th>Since</th>
              <th>Next probe</th>
            </tr>
          </thead>
          <tbody>
            {list.map((item) => (
              <tr key={`${holderOf(item)} ${item.origin}`}>
                <td>
                  <code>{item.origin}</code>
                </td>
                <td>{item.state === 'open' ? 'open (waiting)' : 'half-open (probing)'}</td>
                <td>{holderOf(item)}</td>
                <td>{item.failures}</td>
                <td>{when(item.since)}</td>
                <td>{when(item.next_probe_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <button type="button" onClick={() => void read()}>
        Refresh
      </button>
    </section>
  );
}
