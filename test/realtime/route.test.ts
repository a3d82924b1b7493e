/**
 * The realtime route lets in what the forwarding routes let in (an active project; a visitor or a caller
 * with a valid id token) and only a WebSocket upgrade; refusals are the service's JSON error body.
 */
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { type RealtimeDO } from '../../durable-objects/realtime-do';
import { servedRoute } from '../../src/openapi/route';
import { app } from '../../src/router';
import { OPERATOR_TOKEN, call, createProject, mintUser, type TestProject } from '../helpers/api';
import { TestSocket, VISITOR, joined, newGroup, openSocket, piece, upgradeRequest, visitorStub } from './support';
import { realtimeStub } from '../../src/platform/object-stubs';

let project: TestProject;
let otherProject: TestProject;

beforeAll(async () => {
  [project, otherProject] = await Promise.all([createProject(), createProject()]);
});

async function refusal(res: Response) {
  return { status: res.status, body: await res.json() };
}

describe('refusals', () => {
  it('a GET without Upgrade: websocket is 426 INVALID_REQUEST with the JSON error body', async () => {
    const res = await upgradeRequest(project.service_id, VISITOR, false);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await refusal(res)).toEqual({ status: 426, body: { code: 'INVALID_REQUEST', message: 'Expected a WebSocket upgrade.' } });
  });

  it('an unknown project is 400 INVALID_SERVICE', async () => {
    const res = await upgradeRequest('svc_doesnotexist0000000000');
    expect(await refusal(res)).toMatchObject({ status: 400, body: { code: 'INVALID_SERVICE' } });
  });

  it('a disabled project is 400 SERVICE_DISABLED', async () => {
    const disabled = await createProject();
    const change = await call('PATCH', `/v1/projects/${disabled.service_id}`, { token: OPERATOR_TOKEN, body: { active: false } });
    expect(change.status).toBe(200);
    expect(await refusal(await upgradeRequest(disabled.service_id))).toMatchObject({ status: 400, body: { code: 'SERVICE_DISABLED' } });
  });

  it('an id token on the URL that does not verify is 401 AUTH_REQUIRED, as on the forwarding routes', async () => {
    const forwarding = await call('GET', `/v1/projects/${project.service_id}/forward/queue?queue=q`, { token: 'not-a-token' });
    const res = await upgradeRequest(project.service_id, { ...VISITOR, token: 'not-a-token' });
    const answer = await refusal(res);
    expect(answer).toEqual({ status: forwarding.status, body: forwarding.json });
    expect(answer).toMatchObject({ status: 401, body: { code: 'AUTH_REQUIRED' } });
  });

  it("an id token of another project's user is 401 AUTH_REQUIRED, on the URL and in the header", async () => {
    const stranger = await mintUser(otherProject);
    for (const opener of [{ token: stranger.id_token }, { authorization: `Bearer ${stranger.id_token}` }]) {
      expect(await refusal(await upgradeRequest(project.service_id, { ...VISITOR, ...opener }))).toMatchObject({
        status: 401,
        body: { code: 'AUTH_REQUIRED' },
      });
    }
  });

  it('answers a close frame without a status code, so the client is not left closing', async () => {
    const socket = await openSocket(project);
    const closed = new Promise<boolean>((resolve) => {
      socket.ws.addEventListener('close', () => resolve(true));
      setTimeout(() => resolve(false), 3_000);
    });
    socket.ws.close();
    expect(await closed).toBe(true);
  });

  it('refuses the owner key on the URL (URLs reach logs) and takes it in the Authorization header', async () => {
    const onUrl = await refusal(await upgradeRequest(project.service_id, { ...VISITOR, token: project.owner_key }));
    expect(onUrl).toEqual({
      status: 401,
      body: { code: 'AUTH_REQUIRED', message: 'The owner key is not accepted on a URL: send it in the Authorization header.' },
    });
    const inHeader = await upgradeRequest(project.service_id, { ...VISITOR, authorization: `Bearer ${project.owner_key}` });
    expect(inHeader.status).toBe(101);
    inHeader.webSocket?.accept();
    inHeader.webSocket?.close(1000, 'done');
  });

  it('a refused credential is refused before the missing upgrade is', async () => {
    const res = await upgradeRequest(project.service_id, { ...VISITOR, token: 'not-a-token' }, false);
    expect(res.status).toBe(401);
  });
});

describe('the upgrade', () => {
  it('answers the documented 101 with a socket whose every kind of frame parses with the documented frame schema', async () => {
    const route = servedRoute(app, 'openRealtimeSocket').doc;
    const res = await upgradeRequest(project.service_id);
    expect(res.status).toBe(route.success.status);
    const socket = new TestSocket(res.webSocket!);
    const group = newGroup();
    const frames = [await socket.ask({ type: 'join', group }), await socket.ask('not json')];
    expect(await (await visitorStub(project)).push(group, piece(1))).toBe(1);
    frames.push(await socket.next(), await socket.ask({ type: 'leave' }));
    expect(frames.map((frame) => frame.type)).toEqual(['joined', 'error', 'piece', 'left']);
    for (const frame of frames) expect(route.success.schema.safeParse(frame).error?.issues ?? []).toEqual([]);
    socket.close();
  });

  it("an empty token on the URL is no credential: the socket is the visitor's, as with an empty Bearer header", async () => {
    const group = newGroup();
    const socket = await openSocket(project, { ...VISITOR, token: '' });
    await joined(socket, group);
    expect(await (await visitorStub(project)).push(group, piece(1))).toBe(1);
    expect(await socket.drainUntilLeft()).toEqual([{ type: 'piece', group, ...piece(1) }]);
    socket.close();
  });

  it('keeps no token in the socket: the object sees the route without its query', async () => {
    const user = await mintUser(project);
    const socket = await openSocket(project, { ...VISITOR, token: user.id_token });
    await joined(socket, newGroup());
    const stub = realtimeStub(env, { serviceId: project.service_id, callerKey: `u:${user.user_id}` });
    const uris = await runInDurableObject(stub, (instance: RealtimeDO) => [...instance.getConnections()].map((connection) => connection.uri));
    expect(uris).toEqual([`https://svc.test/v1/projects/${project.service_id}/realtime`]);
    socket.close();
  });
});
