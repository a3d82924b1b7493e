/** The realtime socket's client frames, read without I/O: a join, a leave, or what is wrong with the frame. */
import { REALTIME_GROUP_PATTERN, type RealtimeClientFrame } from '../schemas/forward-rules';
import { utf8Over } from '../schemas/utf8';

/** Longest client frame accepted, in UTF-8 bytes (a join is about 50). */
export const MAX_CLIENT_FRAME_BYTES = 1024;

export type ClientFrameReading = { ok: true; frame: RealtimeClientFrame } | { ok: false; message: string };

const refused = (message: string): ClientFrameReading => ({ ok: false, message });

const MEMBERS: Record<RealtimeClientFrame['type'], readonly string[]> = { join: ['type', 'group'], leave: ['type'] };

function parsed(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** Reads one frame a client sent: text of JSON `{ type: 'join', group }` or `{ type: 'leave' }`, at most 1 KB. */
export function readClientFrame(message: string | ArrayBuffer | ArrayBufferView): ClientFrameReading {
  if (typeof message !== 'string') return refused('Binary frames are not accepted: send a JSON text frame.');
  if (utf8Over(message, MAX_CLIENT_FRAME_BYTES)) return refused(`The frame is over ${MAX_CLIENT_FRAME_BYTES} bytes.`);
  const json = parsed(message);
  if (!json.ok) return refused('The frame is not JSON.');
  const value = json.value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return refused('The frame must be a JSON object.');
  const type = (value as { type?: unknown }).type;
  if (type !== 'join' && type !== 'leave') return refused('type: "join" or "leave" is required.');
  const unknown = Object.keys(value).find((key) => !MEMBERS[type].includes(key));
  if (unknown !== undefined) return refused(`${JSON.stringify(unknown)}: not a member of a ${type} frame.`);
  if (type === 'leave') return { ok: true, frame: { type } };
  const group = (value as { group?: unknown }).group;
  if (typeof group !== 'string' || !REALTIME_GROUP_PATTERN.test(group))
    return refused('group: the realtime_group of a dispatch (22 base62 characters) is required.');
  return { ok: true, frame: { type, group } };
}
