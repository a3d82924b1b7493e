/**
 * A frame the socket cannot read is answered with an error frame naming what is wrong; the socket stays
 * open, keeps its room and goes on working.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_CLIENT_FRAME_BYTES, readClientFrame } from '../../durable-objects/realtime-frames';
import { createProject, type TestProject } from '../helpers/api';
import { type TestSocket, joined, newGroup, openSocket, piece, visitorStub } from './support';

let project: TestProject;
let socket: TestSocket;
const room = newGroup();

beforeAll(async () => {
  project = await createProject();
  socket = await openSocket(project);
  await joined(socket, room);
});

afterAll(() => socket.close());

const GARBAGE: Array<[string, string | ArrayBuffer | Uint8Array, RegExp]> = [
  ['a binary frame', new Uint8Array([123, 125]), /^Binary frames are not accepted/],
  ['an empty binary frame', new ArrayBuffer(0), /^Binary frames are not accepted/],
  ['text that is not JSON', 'join me', /^The frame is not JSON\.$/],
  ['an empty text frame', '', /^The frame is not JSON\.$/],
  ['a JSON array', '[{"type":"leave"}]', /^The frame must be a JSON object\.$/],
  ['JSON null', 'null', /^The frame must be a JSON object\.$/],
  ['a JSON string', '"leave"', /^The frame must be a JSON object\.$/],
  ['an unknown type', '{"type":"subscribe","group":"AAAAAAAAAAAAAAAAAAAAAA"}', /^type: /],
  ['no type', '{"group":"AAAAAAAAAAAAAAAAAAAAAA"}', /^type: /],
  ['a type in another case', '{"type":"JOIN","group":"AAAAAAAAAAAAAAAAAAAAAA"}', /^type: /],
  ['a join without a group', '{"type":"join"}', /^group: /],
  ['a join with a group of 21 characters', '{"type":"join","group":"AAAAAAAAAAAAAAAAAAAAA"}', /^group: /],
  ['a join with a group of 23 characters', '{"type":"join","group":"AAAAAAAAAAAAAAAAAAAAAAA"}', /^group: /],
  ['a join with a group outside base62', '{"type":"join","group":"AAAAAAAAAAAAAAAAAAAAA-"}', /^group: /],
  ['a join with a number group', '{"type":"join","group":1234567890123456789012}', /^group: /],
  ['a join with an unknown member', '{"type":"join","group":"AAAAAAAAAAAAAAAAAAAAAA","room":"x"}', /^"room": not a member of a join frame\.$/],
  ['a leave with a group', '{"type":"leave","group":"AAAAAAAAAAAAAAAAAAAAAA"}', /^"group": not a member of a leave frame\.$/],
  ['10 KB of text', `{"type":"leave","pad":"${'x'.repeat(10_240)}"}`, /^The frame is over 1024 bytes\.$/],
];

describe('frames the socket cannot read', () => {
  for (const [input, frame, message] of GARBAGE) {
    it(`${input} answers an error frame naming what is wrong, and the socket keeps its room`, async () => {
      const answer = await socket.ask(frame);
      expect(answer.type).toBe('error');
      expect(answer.type === 'error' && answer.message).toMatch(message);
      expect(await (await visitorStub(project)).push(room, piece(1))).toBe(1);
      expect(await socket.next()).toEqual({ type: 'piece', group: room, ...piece(1) });
    });
  }

  it('after every refused frame the socket still joins and leaves', async () => {
    const group = newGroup();
    expect(await socket.ask({ type: 'join', group })).toEqual({ type: 'joined', group });
    expect(await socket.ask({ type: 'join', group: room })).toEqual({ type: 'joined', group: room });
  });
});

describe('the size cap counts UTF-8 bytes', () => {
  const leaveWithPad = (pad: string) => JSON.stringify({ type: 'leave', pad });
  const frameOfBytes = (bytes: number, char: string) => leaveWithPad(char.repeat((bytes - leaveWithPad('').length) / new TextEncoder().encode(char).length));

  it('a frame of exactly 1024 bytes is read (here refused for its unknown member, not its size)', () => {
    expect(new TextEncoder().encode(frameOfBytes(MAX_CLIENT_FRAME_BYTES, 'x')).length).toBe(MAX_CLIENT_FRAME_BYTES);
    expect(readClientFrame(frameOfBytes(MAX_CLIENT_FRAME_BYTES, 'x'))).toEqual({ ok: false, message: '"pad": not a member of a leave frame.' });
  });

  it('a frame of under 1024 characters but over 1024 bytes is over the cap', () => {
    const frame = frameOfBytes(MAX_CLIENT_FRAME_BYTES + 20, '\u00e9');
    expect(frame.length).toBeLessThan(MAX_CLIENT_FRAME_BYTES);
    expect(readClientFrame(frame)).toEqual({ ok: false, message: 'The frame is over 1024 bytes.' });
  });
});
