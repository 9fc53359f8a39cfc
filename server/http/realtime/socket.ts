import { randomBytes } from 'node:crypto';
import { type IncomingMessage, type Server as HttpServer, ServerResponse } from 'node:http';
import type Koa from 'koa';
import type { Logger } from 'pino';
import { Server, type Socket } from 'socket.io';
import type { Principal } from '../../domain/context.js';
import { AuthenticationError, NotAllowedError } from '../../domain/errors.js';
import type { OAuthService } from '../../domain/oauth/service.js';
import type { Metrics } from '../../metrics/metrics.js';
import { requestOrigin } from '../query.js';
import type { AppContext, AppState } from '../state.js';
import { type EngineConn, type Handshake, type RealtimeLimits, SessionGuard } from './guard.js';
import type { RealtimeHub } from './hub.js';
import { realtimeMetrics } from './metrics.js';
import { screenRealtimeRequests } from './requests.js';

/** Largest message a client may send (authorization, filters, echo): they are all small. */
const MAX_MESSAGE_BYTES = 16 * 1024;
/** engine.io's heartbeat (its defaults, stated: a client that reads answers a ping within both). */
const PING_INTERVAL_MS = 25_000;
const PING_TIMEOUT_MS = 20_000;

/**
 * Namespaces served. The web app connects to `/das` (the original server's namespace: on any
 * other, socket.io answers "Invalid namespace", the app shows "Unhealthy" and never hears of
 * new reports); `/` serves the same sessions to clients that name none.
 */
const NAMESPACES = ['/das', '/'] as const;

export interface RealtimeDeps {
  oauth: OAuthService;
  hub: RealtimeHub;
  logger: Logger;
  metrics: Metrics;
  /** The HTTP app: a handshake's client address and origin are read as its requests' are. */
  app: Koa<AppState>;
  trustProxy: boolean;
  limits: RealtimeLimits;
  sessionIdPrefix?: string;
}

/**
 * The web app's realtime channel (socket.io at `/socket.io`, on the API's server and port).
 * A socket is authorised by the access token it sends in its `authorization` message (the
 * same check as a REST call: `resp_authorization` 200, or 401 and disconnect); only then does
 * it receive the changes its principal may see, for as long as the token stays valid (checked
 * at each delivery: a revoked or expired token ends the session), and is its `echo` answered
 * (`echo_resp`). Until then it is answered nothing else. What a client may make the server
 * hold is bounded by the SessionGuard (guard.ts).
 */
export function attachRealtime(server: HttpServer, deps: RealtimeDeps): { close(): Promise<void> } {
  const counters = realtimeMetrics(deps.metrics, () => ({ connected: guard.size, authorized: deps.hub.size, queuedPackets: guard.queuedPackets }));
  const guard = new SessionGuard({
    limits: deps.limits,
    stallMs: PING_INTERVAL_MS + PING_TIMEOUT_MS,
    handshake: (req) => handshakeOf(deps, req),
    refused: counters.refused,
    dropped: counters.dropped,
    logger: deps.logger,
  });
  const io = new Server(server, {
    path: '/socket.io',
    serveClient: false,
    maxHttpBufferSize: MAX_MESSAGE_BYTES,
    pingInterval: PING_INTERVAL_MS,
    pingTimeout: PING_TIMEOUT_MS,
    cors: { origin: false },
    allowRequest: guard.allowRequest,
  });
  io.engine.on('connection', (conn: EngineConn) => guard.admit(conn));
  // A cluster worker's session ids name the worker, so that the primary routes each request of
  // a session to the one worker that knows it (server/cluster/sticky.ts reads the prefix).
  const prefix = deps.sessionIdPrefix;
  if (prefix) io.engine.generateId = () => prefix + randomBytes(15).toString('base64url');
  screenRealtimeRequests(server, prefix);

  const onConnection = (socket: Socket) => {
    const conn = socket.conn as unknown as EngineConn;
    /** Ends the socket's registration (the hub's, and the guard's count of authorised sockets). */
    let registration: (() => void) | null = null;
    const unregister = () => {
      registration?.();
      registration = null;
    };
    const register = (principal: Principal, token: string) => {
      unregister();
      const removeFromHub = deps.hub.add({
        tenantId: principal.tenantId,
        origin: guard.originOf(conn),
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
        close: () => {
          unregister();
          socket.disconnect(true);
        },
      });
      const release = guard.authorized(conn);
      registration = () => {
        removeFromHub();
        release();
      };
    };
    /** The principal of an `authorization` message's bearer token, or null (no token, or not valid now). */
    const check = async (message: unknown): Promise<{ principal: Principal; token: string } | null> => {
      const header = String((message as { authorization?: unknown } | null)?.authorization ?? '');
      const token = /^bearer\s+(\S+)$/i.exec(header.trim())?.[1];
      if (!token) return null;
      try {
        return { principal: await deps.oauth.authenticateBearer(token, undefined), token };
      } catch {
        return null;
      }
    };
    // One check at a time per socket: a flood of them would each read the database. Messages that
    // come during a check wait for it; then the latest of them is checked, and answers them all.
    // Every message is answered, in order, and the last one decides: 200 registers the socket (in
    // place of any earlier registration); 401 ends its registration, and the socket too unless
    // another message waits.
    let checking = false;
    let waiting: { message: unknown; answers: number } | null = null;
    const authorize = async (message: unknown) => {
      checking = true;
      try {
        for (let current: typeof waiting = { message, answers: 1 }; current; current = waiting, waiting = null) {
          const checked = await check(current.message);
          // The socket may have closed while the token was checked; its 'disconnect' has run
          // then, and would never remove a registration made now (issue 24).
          if (!socket.connected) return;
          if (checked) register(checked.principal, checked.token);
          else unregister();
          const status = checked ? { code: 200, message: 'OK' } : { code: 401, message: 'Unauthorized' };
          for (let i = 0; i < current.answers; i++) socket.emit('resp_authorization', { status });
          if (!checked && !waiting) socket.disconnect(true);
        }
      } finally {
        checking = false;
        waiting = null;
      }
    };
    socket.on('authorization', (message: unknown) => {
      if (checking) waiting = { message, answers: (waiting?.answers ?? 0) + 1 };
      else void authorize(message);
    });
    socket.on('echo', () => {
      if (registration) socket.emit('echo_resp', { data: 'pong' });
    });
    socket.on('disconnect', unregister);
  };
  for (const name of NAMESPACES) io.of(name).on('connection', onConnection);
  io.engine.on('connection_error', (error: { code?: number; message?: string }) => deps.logger.debug({ code: error.code, message: error.message }, 'realtime connection refused'));
  // NOTE: io.close() would also close the HTTP server and wait for its keep-alive sockets;
  // the server's own shutdown does that. Here only the realtime sessions end.
  return {
    close: async () => {
      guard.close();
      for (const name of NAMESPACES) io.of(name).disconnectSockets(true);
      io.engine.close();
    },
  };
}

/**
 * A handshake's client address and origin, read exactly as the HTTP side reads a request's
 * (Koa's `ctx.ip` under the app's proxy settings, and `requestOrigin`, which refuses a Host
 * that is not a valid host[:port]). NOTE: only request getters are read; the response is a
 * placeholder that is never written.
 */
function handshakeOf(deps: RealtimeDeps, req: IncomingMessage): Handshake {
  const ctx = deps.app.createContext(req, new ServerResponse(req)) as unknown as AppContext;
  let origin: string | null;
  try {
    origin = requestOrigin(ctx, deps.trustProxy);
  } catch {
    origin = null;
  }
  return { address: ctx.ip, origin };
}
