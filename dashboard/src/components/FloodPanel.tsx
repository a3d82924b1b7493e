/**
 * Whether a ticket is being limited (issue 26 item 6): per minute of the last hour, requests refused 429
 * and failures or dry runs counted instead of kept. Shown above the log only when there is something to show.
 */
import { useEffect, useState } from 'preact/hooks';
import type { OwnerApi } from '../api';

interface FloodMinute {
  minute: number;
  limited: number;
  sampled: number;
}

const minuteText = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace('T', ' ') + ' UTC';

/** `refresh` changes whenever the log is read again, so the counts follow the log's refreshes. */
export function FloodPanel({ api, ticketId, refresh }: { api: OwnerApi; ticketId: string; refresh: number }) {
  const [minutes, setMinutes] = useState<FloodMinute[]>([]);
  useEffect(() => {
    api
      .project<{ minutes: FloodMinute[] }>('GET', `/tickets/${encodeURIComponent(ticketId)}/flood`)
      .then((answer) => setMinutes(answer.minutes))
      .catch(() => setMinutes([]));
  }, [ticketId, refresh]);
  if (minutes.length === 0) return null;
  return (
    <section id="flood" class="flood" aria-labelledby="flood-title">
      <h3 id="flood-title">Being limited</h3>
      <p class="hint">
        Requests refused by the flood limits (429, at least this many) and failures or dry runs counted instead of kept, per minute of the last hour.
      </p>
      <table>
        <thead>
          <tr>
            <th scope="col">Minute</th>
            <th scope="col">Refused (429)</th>
            <th scope="col">Counted, not kept</th>
          </tr>
        </thead>
        <tbody>
          {minutes.map((m) => (
            <tr key={m.minute} data-minute={m.minute}>
              <td>{minuteText(m.minute)}</td>
              <td data-label="limited">{m.limited}</td>
              <td data-label="sampled">{m.sampled}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
