import type { IncomingMessage, Server as HttpServer, ServerResponse } from 'node:http';

/** Methods engine.io's long-polling answers (no CORS: the channel is same-origin, so no preflight). */
const METHODS = new Set(['GET', 'POST']);

/**
 * Requests under `/socket.io/` that engine.io would mishandle are answered here, before it:
 *
 * - Another method (HEAD, OPTIONS, PUT, ...) on an open session: engine.io answers 500 (its
 *   polling transport knows GET and POST only). Answered 405 with engine.io's error body.
 * - With workers (`prefix`), the primary routes a connection by its first request, and a
 *   keep-alive connection stays with its worker: a browser may later send a poll of a session
 *   another worker holds on it. Such a request is answered 503 with `Connection: close` instead
 *   of engine.io's "Session ID unknown" (400): the client's retry, or its reconnection, comes on
 *   a new connection, which the primary routes by the session id. Clients that upgrade to
 *   WebSocket (the web app does within its first requests) then stay on the right worker.
 *   NOTE: forwarding such a request to its worker would spare the retry; not built.
 */
export function screenRealtimeRequests(server: HttpServer, prefix: string | undefined): void {
  const listeners = server.listeners('request') as Array<(req: IncomingMessage, res: ServerResponse) => void>;
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (!req.url?.startsWith('/socket.io/')) {
      for (const listener of listeners) listener.call(server, req, res);
    } else if (!METHODS.has(req.method ?? '')) {
      res.writeHead(405, { 'content-type': 'application/json', allow: 'GET, POST' });
      res.end(JSON.stringify({ code: 3, message: 'Method not allowed' }));
    } else if (prefix && isMisrouted(req.url, prefix)) {
      res.shouldKeepAlive = false;
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '0', connection: 'close' });
      res.end(JSON.stringify({ status: { code: 503, message: 'Service Unavailable', detail: 'This realtime session is held by another worker: retry on a new connection.' } }));
    } else {
      for (const listener of listeners) listener.call(server, req, res);
    }
  });
}

/** A realtime request naming a session of another worker (`w<slot>.` ids). */
export function isMisrouted(url: string | undefined, prefix: string): boolean {
  if (!url?.startsWith('/socket.io/')) return false;
  const sid = /[?&]sid=([^&]*)/.exec(url)?.[1];
  return sid !== undefined && /^w\d+\./.test(sid) && !sid.startsWith(prefix);
}
