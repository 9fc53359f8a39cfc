import { randomBytes } from 'node:crypto';
import type { IncomingMessage, Server as HttpServer, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { Server, type Socket } from 'socket.io';
import { AuthenticationError, NotAllowedError } from '../../domain/errors.js';
import type { OAuthService } from '../../domain/oauth/service.js';
import type { RealtimeHub } from './hub.js';

/** Largest message a client may send (authorization, filters, echo): they are all small. */
const MAX_MESSAGE_BYTES = 16 * 1024;

/**
 * Namespaces served. The web app connects to `/das` (the original server's namespace: on any
 * other, socket.io answers "Invalid namespace", the app shows "Unhealthy" and never hears of
 * new reports); `/` serves the same sessions to clients that name none.
 */
const NAMESPACES = ['/das', '/'] as const;

/**
 * The web app's realtime channel (socket.io at `/socket.io`, on the API's server and port).
 * A socket is authorised by the access token it sends in its `authorization` message (the
 * same check as a REST call: `resp_authorization` 200, or 401 and disconnect); only then does
 * it receive the changes its principal may see, for as long as the token stays valid (checked
 * at each delivery: a revoked or expired token ends the session). `echo` is answered with
 * `echo_resp`.
 */
export function attachRealtime(server: HttpServer, deps: { oauth: OAuthService; hub: RealtimeHub; logger: Logger; sessionIdPrefix?: string }): { close(): Promise<void> } {
  const io = new Server(server, { path: '/socket.io', serveClient: false, maxHttpBufferSize: MAX_MESSAGE_BYTES, cors: { origin: false } });
  // A cluster worker's session ids name the worker, so that the primary routes each request of
  // a session to the one worker that knows it (server/cluster/sticky.ts reads the prefix).
  const prefix = deps.sessionIdPrefix;
  if (prefix) {
    io.engine.generateId = () => prefix + randomBytes(15).toString('base64url');
    refuseMisrouted(server, prefix);
  }
  const onConnection = (socket: Socket) => {
    let remove: (() => void) | null = null;
    socket.on('authorization', async (message: unknown) => {
      const header = String((message as { authorization?: unknown } | null)?.authorization ?? '');
      const token = /^bearer\s+(\S+)$/i.exec(header.trim())?.[1];
      try {
        if (!token) throw new Error('no token');
        const principal = await deps.oauth.authenticateBearer(token, undefined);
        remove?.();
        remove = deps.hub.add({
          tenantId: principal.tenantId,
          authorize: async () => {
            try {
              return await deps.oauth.authenticateBearer(token, undefined);
            } catch (error) {
              if (error instanceof AuthenticationError || error instanceof NotAllowedError) return null;
              deps.logger.warn({ err: error }, 'realtime: the session\'s token could not be checked; this change is not delivered to it');
              throw error;
            }
          },
          send: (type, payload) => void socket.emit(type, payload),
          close: () => void socket.disconnect(true),
        });
        socket.emit('resp_authorization', { status: { code: 200, message: 'OK' } });
      } catch {
        socket.emit('resp_authorization', { status: { code: 401, message: 'Unauthorized' } });
        socket.disconnect(true);
      }
    });
    socket.on('echo', () => void socket.emit('echo_resp', { data: 'pong' }));
    socket.on('disconnect', () => remove?.());
  };
  for (const name of NAMESPACES) io.of(name).on('connection', onConnection);
  io.engine.on('connection_error', (error: { code?: number; message?: string }) => deps.logger.debug({ code: error.code, message: error.message }, 'realtime connection refused'));
  // NOTE: io.close() would also close the HTTP server and wait for its keep-alive sockets;
  // the server's own shutdown does that. Here only the realtime sessions end.
  return {
    close: async () => {
      for (const name of NAMESPACES) io.of(name).disconnectSockets(true);
      io.engine.close();
    },
  };
}

/**
 * With workers, the primary routes a connection by its first request, and a keep-alive
 * connection stays with its worker: a browser may later send a poll of a session another worker
 * holds on it. Such a request is answered 503 with `Connection: close` instead of engine.io's
 * "Session ID unknown" (400): the client's retry, or its reconnection, comes on a new
 * connection, which the primary routes by the session id. Clients that upgrade to WebSocket
 * (the web app does within its first requests) then stay on the right worker.
 * NOTE: forwarding such a request to its worker would spare the retry; not built.
 */
function refuseMisrouted(server: HttpServer, prefix: string): void {
  const listeners = server.listeners('request') as Array<(req: IncomingMessage, res: ServerResponse) => void>;
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (!isMisrouted(req.url, prefix)) {
      for (const listener of listeners) listener.call(server, req, res);
      return;
    }
    res.shouldKeepAlive = false;
    res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '0', connection: 'close' });
    res.end(JSON.stringify({ status: { code: 503, message: 'Service Unavailable', detail: 'This realtime session is held by another worker: retry on a new connection.' } }));
  });
}

/** A realtime request naming a session of another worker (`w<slot>.` ids). */
export function isMisrouted(url: string | undefined, prefix: string): boolean {
  if (!url?.startsWith('/socket.io/')) return false;
  const sid = /[?&]sid=([^&]*)/.exec(url)?.[1];
  return sid !== undefined && /^w\d+\./.test(sid) && !sid.startsWith(prefix);
}
