/**
 * A realtime stream (spec 6.2): the dispatch answer names a random room; each stored piece is pushed to
 * it as it is stored, in order, the same pieces the poll reads; another caller in a room of that name
 * receives nothing.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { REALTIME_GROUP_PATTERN } from '../../schemas/forward-rules';
import { call, createProject, type TestProject } from '../helpers/api';
import { joined, openSocket, VISITOR, type TestSocket } from '../realtime/support';
import { origin, readStream } from './support';

let project: TestProject;
beforeAll(async () => {
  project = await createProject();
});

const asVisitor = { headers: { 'cf-connecting-ip': VISITOR.ip!, 'user-agent': VISITOR.userAgent! } };

/** Piece frames until `count` pieces arrived or the socket has been quiet for a second. */
async function pieces(socket: TestSocket, until: (seen: { seq: number; txt: string }[]) => boolean) {
  const seen: { seq: number; txt: string; id: string }[] = [];
  while (!until(seen)) {
    const frame = await socket.next();
    if (frame.type === 'piece') seen.push(frame);
  }
  return seen;
}

describe('a realtime stream', () => {
  it('answers a random realtime_group and pushes every stored piece to that room in order', async () => {
    const socket = await openSocket(project);
    const url = `${origin}/pieces/${crypto.randomUUID()}`;
    const texts = ['data: a\n\n', 'data: b\n\n', 'data: c\n\n', 'data: d\n\n'];
    const dispatched = await call('POST', `/v1/projects/${project.service_id}/forward`, {
      body: { url, method: 'POST', stream: true, realtime: true, data: { pieces: texts, gap_ms: 150 } },
      ...asVisitor,
    });
    const group = dispatched.json.realtime_group as string;
    expect(group).toMatch(REALTIME_GROUP_PATTERN);
    expect(group).not.toContain(dispatched.json.id.split(':')[1]);
    await joined(socket, group);
    const request = { id: dispatched.json.id as string, url, method: 'POST' };
    const polled = await readStream(project, request, 0, asVisitor);
    expect(polled.text).toBe(texts.join(''));
    // Joined before the second piece was stored: every later piece arrives, in seq order, as the poll reads it.
    const last = polled.seqs[polled.seqs.length - 1];
    const pushed = await pieces(socket, (seen) => seen.at(-1)?.seq === last);
    expect(pushed.every((frame) => frame.id === request.id)).toBe(true);
    const seqs = pushed.map((frame) => frame.seq);
    expect(seqs).toEqual(seqs.map((_, i) => seqs[0] + i));
    expect(pushed.map((frame) => frame.txt).join('')).toBe(texts.join('').slice(-pushed.map((frame) => frame.txt).join('').length));
    socket.close();
  });

  it('gives no room without realtime, or without stream', async () => {
    const url = `${origin}/pieces/${crypto.randomUUID()}`;
    const plain = await call('POST', `/v1/projects/${project.service_id}/forward`, { body: { url, method: 'POST', stream: true, data: { pieces: ['x'] } } });
    expect(plain.json).not.toHaveProperty('realtime_group');
    const notStreamed = await call('POST', `/v1/projects/${project.service_id}/forward`, { body: { url, method: 'POST', realtime: true, queue: 'rt' } });
    expect(notStreamed.json).not.toHaveProperty('realtime_group');
  });

  it("never pushes a caller's pieces to another caller in a room of that name", async () => {
    const other = await openSocket(project, { ip: '203.0.113.9', userAgent: 'someone else' });
    const url = `${origin}/pieces/${crypto.randomUUID()}`;
    const dispatched = await call('POST', `/v1/projects/${project.service_id}/forward`, {
      body: { url, method: 'POST', stream: true, realtime: true, data: { pieces: ['secret ', 'answer'], gap_ms: 100 } },
      ...asVisitor,
    });
    await joined(other, dispatched.json.realtime_group);
    await readStream(project, { id: dispatched.json.id, url, method: 'POST' }, 0, asVisitor);
    expect(await other.drainUntilLeft()).toEqual([]);
    other.close();
  });
});
