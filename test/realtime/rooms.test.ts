/**
 * Rooms of the realtime socket (spec 6.2): a socket is in one room at a time, and a piece pushed to a room
 * reaches exactly the sockets of that room of that caller, in the order pushed.
 */
import { env } from 'cloudflare:workers';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createProject, mintUser, type TestProject } from '../helpers/api';
import { type TestSocket, VISITOR, joined, newGroup, openSocket, piece, visitorStub } from './support';
import { realtimeStub } from '../../src/platform/object-stubs';

let project: TestProject;
const opened: TestSocket[] = [];

async function socket(opener = VISITOR): Promise<TestSocket> {
  const s = await openSocket(project, opener);
  opened.push(s);
  return s;
}

beforeAll(async () => {
  project = await createProject();
});

afterEach(() => {
  for (const s of opened.splice(0)) s.close();
});

describe('join and leave', () => {
  it('a join of a realtime_group answers joined with the group; a leave answers left', async () => {
    const s = await socket();
    const group = newGroup();
    expect(await s.ask({ type: 'join', group })).toEqual({ type: 'joined', group });
    expect(await s.ask({ type: 'leave' })).toEqual({ type: 'left' });
  });

  it('after a leave the socket receives no piece of the room it left', async () => {
    const s = await socket();
    const group = newGroup();
    await joined(s, group);
    expect(await s.ask({ type: 'leave' })).toEqual({ type: 'left' });
    expect(await (await visitorStub(project)).push(group, piece(1))).toBe(0);
    expect(await s.drainUntilLeft()).toEqual([]);
  });
});

describe('push', () => {
  it('reaches every socket of the room, in the order pushed, and no socket of another room or of none', async () => {
    const group = newGroup();
    const [a, b, elsewhere, nowhere] = await Promise.all([socket(), socket(), socket(), socket()]);
    await Promise.all([joined(a, group), joined(b, group), joined(elsewhere, newGroup())]);
    const stub = await visitorStub(project);
    const reached: number[] = [];
    for (let seq = 1; seq <= 20; seq += 1) reached.push(await stub.push(group, piece(seq)));
    expect(reached).toEqual(Array(20).fill(2));
    const expected = Array.from({ length: 20 }, (_, i) => ({ type: 'piece', group, ...piece(i + 1) }));
    expect(await a.drainUntilLeft()).toEqual(expected);
    expect(await b.drainUntilLeft()).toEqual(expected);
    expect(await elsewhere.drainUntilLeft()).toEqual([]);
    expect(await nowhere.drainUntilLeft()).toEqual([]);
  });

  it('a join replaces the room: pieces of the old room stop, those of the new one arrive', async () => {
    const [first, second] = [newGroup(), newGroup()];
    const s = await socket();
    const stub = await visitorStub(project);
    await joined(s, first);
    expect(await stub.push(first, piece(1))).toBe(1);
    expect(await s.next()).toEqual({ type: 'piece', group: first, ...piece(1) });
    await joined(s, second);
    expect(await stub.push(first, piece(2))).toBe(0);
    expect(await stub.push(second, piece(3))).toBe(1);
    expect(await s.drainUntilLeft()).toEqual([{ type: 'piece', group: second, ...piece(3) }]);
  });

  it('a push to a room nobody joined reaches nobody and answers 0', async () => {
    expect(await (await visitorStub(project)).push(newGroup(), piece(1))).toBe(0);
  });
});

describe("another caller's sockets", () => {
  it('a visitor with another user agent who joins the same group name receives nothing', async () => {
    const group = newGroup();
    const mine = await socket();
    const theirs = await socket({ ...VISITOR, userAgent: 'another-browser' });
    await Promise.all([joined(mine, group), joined(theirs, group)]);
    expect(await (await visitorStub(project)).push(group, piece(1))).toBe(1);
    expect(await mine.drainUntilLeft()).toEqual([{ type: 'piece', group, ...piece(1) }]);
    expect(await theirs.drainUntilLeft()).toEqual([]);
  });

  it('a signed-in user (id token on the URL) is their own caller: a visitor push misses them, their own reaches them', async () => {
    const user = await mintUser(project);
    const group = newGroup();
    const signedIn = await socket({ ...VISITOR, token: user.id_token });
    await joined(signedIn, group);
    expect(await (await visitorStub(project)).push(group, piece(1))).toBe(0);
    const own = realtimeStub(env, { serviceId: project.service_id, callerKey: `u:${user.user_id}` });
    expect(await own.push(group, piece(2))).toBe(1);
    expect(await signedIn.drainUntilLeft()).toEqual([{ type: 'piece', group, ...piece(2) }]);
  });

  it('an id token in the Authorization header reaches the same caller as one on the URL', async () => {
    const user = await mintUser(project);
    const group = newGroup();
    const byHeader = await socket({ ...VISITOR, authorization: `Bearer ${user.id_token}` });
    await joined(byHeader, group);
    const own = realtimeStub(env, { serviceId: project.service_id, callerKey: `u:${user.user_id}` });
    expect(await own.push(group, piece(1))).toBe(1);
    expect(await byHeader.drainUntilLeft()).toEqual([{ type: 'piece', group, ...piece(1) }]);
  });

  it('the same user in another project is another caller', async () => {
    const other = await createProject();
    const user = await mintUser(project);
    const group = newGroup();
    const s = await socket({ ...VISITOR, token: user.id_token });
    await joined(s, group);
    const sameKeyOtherProject = realtimeStub(env, { serviceId: other.service_id, callerKey: `u:${user.user_id}` });
    expect(await sameKeyOtherProject.push(group, piece(1))).toBe(0);
    expect(await s.drainUntilLeft()).toEqual([]);
  });
});
