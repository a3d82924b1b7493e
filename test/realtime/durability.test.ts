/**
 * The object keeps working under churn and across hibernation: each socket's room lives in its WebSocket
 * attachment, not in the object's memory, and a closing socket never breaks a push.
 */
import { evictDurableObject, runInDurableObject } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RealtimeDO, RealtimeSocketState } from '../../durable-objects/realtime-do';
import { createProject, type TestProject } from '../helpers/api';
import { type Opener, VISITOR, joined, newGroup, openSocket, piece, visitorStub } from './support';

let project: TestProject;

beforeAll(async () => {
  project = await createProject();
});

/** A caller of the test's own, so the sockets of one test are alone in their object. */
const ownCaller = (name: string): Opener => ({ ...VISITOR, userAgent: `realtime-durability-${name}` });

const roomsIn = (instance: RealtimeDO) => [...instance.getConnections<RealtimeSocketState>()].map((connection) => connection.state?.room ?? null);

describe('churn', () => {
  it('after 1,000 sockets opened and closed (20 at a time) a push still reaches the one socket left in the room', async () => {
    const opener = ownCaller('churn');
    const group = newGroup();
    const keeper = await openSocket(project, opener);
    await joined(keeper, group);
    for (let batch = 0; batch < 50; batch += 1) {
      const sockets = await Promise.all(Array.from({ length: 20 }, () => openSocket(project, opener)));
      await Promise.all(sockets.map((socket) => joined(socket, group)));
      for (const socket of sockets) socket.close();
    }
    const stub = await visitorStub(project, opener);
    await expect.poll(() => runInDurableObject(stub, (instance: RealtimeDO) => roomsIn(instance).length), { timeout: 10_000 }).toBe(1);
    expect(await stub.push(group, piece(1))).toBe(1);
    expect(await keeper.drainUntilLeft()).toEqual([{ type: 'piece', group, ...piece(1) }]);
    keeper.close();
  }, 120_000);

  it('a push while a socket of the room is closing answers, counting only the open ones', async () => {
    const opener = ownCaller('closing');
    const group = newGroup();
    const [staying, leaving] = await Promise.all([openSocket(project, opener), openSocket(project, opener)]);
    await Promise.all([joined(staying, group), joined(leaving, group)]);
    const stub = await visitorStub(project, opener);
    const reached = await runInDurableObject(stub, async (instance: RealtimeDO, state) => {
      const [first] = state.getWebSockets();
      first.close(1001, 'going away');
      return instance.push(group, piece(1));
    });
    expect(reached).toBe(1);
    staying.close();
    leaving.close();
  });
});

describe('hibernation', () => {
  it('each socket keeps its room in its attachment: a fresh read of the connections finds every room', async () => {
    const opener = ownCaller('attachment');
    const [a, b] = [newGroup(), newGroup()];
    const sockets = await Promise.all([openSocket(project, opener), openSocket(project, opener), openSocket(project, opener)]);
    await Promise.all([joined(sockets[0], a), joined(sockets[1], b)]);
    const stub = await visitorStub(project, opener);
    await evictDurableObject(stub);
    // The attachment as stored (partyserver keeps the connection's state under __user), read past partyserver's wrapper.
    const attachments = await runInDurableObject(stub, (_instance: RealtimeDO, state) =>
      state.getWebSockets().map((ws) => (WebSocket.prototype.deserializeAttachment.call(ws) as { __user: RealtimeSocketState }).__user),
    );
    expect(attachments.map((attachment) => attachment.room).sort()).toEqual([a, b, null].sort());
    for (const socket of sockets) socket.close();
  });

  it('after the object is evicted (its sockets hibernated), a push reaches the room joined before and the socket still answers', async () => {
    const opener = ownCaller('evicted');
    const group = newGroup();
    const socket = await openSocket(project, opener);
    await joined(socket, group);
    const stub = await visitorStub(project, opener);
    await evictDurableObject(stub);
    expect(await stub.push(group, piece(1))).toBe(1);
    expect(await socket.next()).toEqual({ type: 'piece', group, ...piece(1) });
    const other = newGroup();
    expect(await socket.ask({ type: 'join', group: other })).toEqual({ type: 'joined', group: other });
    await evictDurableObject(stub);
    expect(await runInDurableObject(stub, (instance: RealtimeDO) => roomsIn(instance))).toEqual([other]);
    socket.close();
  });

  it('the object keeps no alarm awake', async () => {
    const opener = ownCaller('alarm');
    const socket = await openSocket(project, opener);
    await joined(socket, newGroup());
    const stub = await visitorStub(project, opener);
    expect(await runInDurableObject(stub, (_instance: RealtimeDO, state) => state.storage.getAlarm())).toBeNull();
    socket.close();
  });
});
