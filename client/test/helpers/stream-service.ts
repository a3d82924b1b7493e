import type { ServerResponse } from 'node:http';
import type { ForwardFailure, ForwardStatus, ForwardStatusEnvelope, StreamedEnvelope } from '../../../schemas/forward-rules.js';
import { json, type RecordedRequest, type ScriptedServer } from './scripted-server.js';
import { acceptSockets, type ScriptedSocket } from './scripted-socket.js';

/** One request of the scripted service. */
export interface ScriptedRequest {
  id: string;
  url: string;
  method: string;
  queue: string;
  status: ForwardStatus;
  streamed: boolean;
  pieces: string[];
  group?: string;
  error?: ForwardFailure;
  response_body?: unknown;
  /** Set by finalize: the kept version. */
  finalized?: { body: unknown };
}

/** Where a socket is (the room it joined). */
interface Member {
  socket: ScriptedSocket;
  group: string | null;
}

/**
 * Plays the service's side of streamed forwarding on a scripted server, as the wire contract states it:
 * dispatch, polls with and without a cursor (capped pages, degraded reads), finalize, and the realtime
 * socket (join, joined, pieces pushed to the room as they are stored). The test drives the requests.
 */
export class StreamService {
  readonly requests = new Map<string, ScriptedRequest>();
  readonly members: Member[] = [];
  /** Pieces per cursor answer at most. */
  pageSize = 1000;
  /** The next this many cursor reads answer degraded (the pieces could not be read). */
  degradedReads = 0;
  private count = 0;
  readonly sockets: ScriptedSocket[];

  constructor(
    private readonly server: ScriptedServer,
    private readonly serviceId: string,
  ) {
    this.sockets = acceptSockets(server.http, `/v1/projects/${serviceId}/realtime`, {
      open: (socket) => this.members.push({ socket, group: null }),
      message: (socket, text) => this.receive(socket, text),
    });
    server.handle((req, res) => this.answer(req, res));
  }

  /** A request as if a dispatch had stored it. */
  add(init: Partial<ScriptedRequest> & { url: string }): ScriptedRequest {
    this.count++;
    const request: ScriptedRequest = {
      id: `S${this.count}:abcdefgh`,
      method: 'POST',
      queue: `q${this.count}`,
      status: 'pending',
      streamed: true,
      pieces: [],
      ...init,
    };
    this.requests.set(request.id, request);
    return request;
  }

  /** Stores a piece and pushes it to its room (unless `push` is false: stored before anyone joined, say). */
  append(request: ScriptedRequest, txt: string, push = true): number {
    request.status = request.status === 'pending' ? 'running' : request.status;
    request.pieces.push(txt);
    const seq = request.pieces.length;
    if (push) this.push(request, seq, txt);
    return seq;
  }

  /** Sends a piece frame to the room without storing anything. */
  push(request: ScriptedRequest, seq: number, txt: string): void {
    for (const member of this.members) {
      if (request.group && member.group === request.group)
        member.socket.send(JSON.stringify({ type: 'piece', group: request.group, id: request.id, seq, txt }));
    }
  }

  settle(request: ScriptedRequest, status: 'resolved' | 'failed', error?: ForwardFailure): void {
    request.status = status;
    request.error = error;
  }

  /** The cursor reads of one request, each as the `since` it sent (undefined: no cursor). */
  reads(id: string): Array<string | undefined> {
    return this.server.requests
      .map((req) => new URL(req.url, 'http://service'))
      .filter((url) => url.pathname.endsWith('/forward/request') && url.searchParams.get('id') === id)
      .map((url) => url.searchParams.get('since') ?? undefined);
  }

  /** Forgets every request and socket setting (between tests); open sockets are cut. */
  reset(): void {
    this.requests.clear();
    this.pageSize = 1000;
    this.degradedReads = 0;
    this.close();
    this.members.length = 0;
    this.sockets.length = 0;
  }

  close(): void {
    for (const socket of this.sockets) socket.destroy();
  }

  private receive(socket: ScriptedSocket, text: string): void {
    const member = this.members.find((m) => m.socket === socket)!;
    const frame = JSON.parse(text) as { type: string; group?: string };
    if (frame.type === 'join' && typeof frame.group === 'string') {
      member.group = frame.group;
      socket.send(JSON.stringify({ type: 'joined', group: frame.group }));
    }
  }

  private envelope(request: ScriptedRequest): ForwardStatusEnvelope {
    const open = request.status === 'pending' || request.status === 'running';
    const envelope: ForwardStatusEnvelope = {
      id: request.id,
      status: request.status,
      queue_name: request.queue,
      in_queue: open ? 1 : 0,
      created: 1000,
      updated: 1000,
    };
    if (request.error) envelope.error = request.error;
    return envelope;
  }

  private answer(req: RecordedRequest, res: ServerResponse): unknown {
    const url = new URL(req.url, 'http://service');
    const route = `${req.method} ${url.pathname.replace(`/v1/projects/${this.serviceId}`, '')}`;
    if (route === 'POST /forward') {
      const body = JSON.parse(req.body);
      const request = this.add({ url: body.url, method: body.method, streamed: body.stream === true, queue: body.queue ?? `gen${this.count + 1}` });
      if (body.stream && body.realtime) request.group = `G${request.id.split(':')[0]}`.padEnd(22, 'x');
      return json(res, 200, { ...this.envelope(request), ...(request.group ? { realtime_group: request.group } : {}) });
    }
    if (route === 'POST /forward/request/finalize') return this.finalize(JSON.parse(req.body), res);
    if (route === 'POST /forward/request/withdraw') return json(res, 200, { removed: true, message: 'Removed.' });
    if (route !== 'GET /forward/request') return json(res, 404, { code: 'NOT_FOUND', message: route });
    const request = this.requests.get(url.searchParams.get('id') ?? '');
    if (!request || request.url !== url.searchParams.get('url') || request.method !== url.searchParams.get('method')) {
      return json(res, 404, { code: 'NOT_FOUND', message: 'Request not found.' });
    }
    const sinceText = url.searchParams.get('since');
    if (sinceText === null) {
      const body = request.finalized ? request.finalized.body : request.response_body;
      return json(res, 200, { ...this.envelope(request), ...(body === undefined ? {} : { response_body: body }) });
    }
    if (request.finalized) return json(res, 200, request.finalized.body);
    const since = Number(sinceText);
    if (!request.streamed)
      return json(res, 200, { ...this.envelope(request), response_body: request.response_body, stream: false, chunks: [], last_seq: since, more: false });
    if (this.degradedReads > 0) {
      this.degradedReads--;
      return json(res, 200, { ...this.envelope(request), stream: true, chunks: [], last_seq: since, more: true } satisfies StreamedEnvelope);
    }
    const after = request.pieces.slice(since);
    const chunks = after.slice(0, this.pageSize).map((txt, i) => ({ seq: since + i + 1, txt }));
    const answer: StreamedEnvelope = {
      ...this.envelope(request),
      stream: true,
      chunks,
      last_seq: chunks.at(-1)?.seq ?? since,
      more: after.length > this.pageSize,
    };
    return json(res, 200, answer);
  }

  private finalize(body: { id: string; url: string; method: string; data: unknown }, res: ServerResponse): unknown {
    const request = this.requests.get(body.id);
    if (!request || request.url !== body.url || request.method !== body.method) return json(res, 200, { finalized: false, message: 'Request not found.' });
    request.finalized = { body: body.data };
    return json(res, 200, { finalized: true, message: 'Finalized.' });
  }
}
