/**
 * The HTTP side of a start, once the app is built: the listener's requests go to the fast
 * revalidation path (a 304 answered without Koa) and otherwise to the app; connections are
 * capped per address; the realtime channel shares the server and its port.
 */
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';
import type { Services } from './app.js';
import type { Config } from './config.js';
import { fastRevalidation } from './http/fast-revalidation.js';
import { attachRealtime } from './http/realtime/socket.js';
import type { AppState } from './http/state.js';
import { capConnectionsPerAddress } from './security/connection-cap.js';
import type { Listener } from './startup.js';

export interface ServedHttp {
  url: string;
  port: number;
  /** Closes the realtime channel, stops accepting connections and finishes in-flight requests (cut after 10 s). */
  close(): Promise<void>;
}

/** Hands the listener's requests to `app`; a cluster worker names its realtime sessions with `sessionIdPrefix`. */
export function serveHttp(listener: Listener, app: Koa<AppState>, services: Services, config: Config, sessionIdPrefix?: string): ServedHttp {
  const handle = app.callback();
  const revalidate = fastRevalidation(services);
  const server = listener.server;
  listener.setHandler((req, res) => {
    revalidate(req, res).then(
      (answered) => {
        if (!answered) void handle(req, res);
      },
      () => void handle(req, res),
    );
  });
  capConnectionsPerAddress(server, config.maxConnectionsPerAddress);
  const realtime = attachRealtime(server, {
    oauth: services.oauth,
    hub: services.realtime,
    logger: services.logger,
    metrics: services.metrics,
    app,
    trustProxy: config.trustProxy,
    limits: config.realtime,
    sessionIdPrefix,
  });
  server.keepAliveTimeout = 5000;
  server.requestTimeout = 60000;
  // A handed listener binds nothing: its port is the primary's.
  const port = (server.address() as AddressInfo | null)?.port ?? config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return {
    url: `http://${host}:${port}`,
    port,
    async close() {
      await realtime.close();
      const stopped = Promise.all([new Promise<void>((resolve) => server.close(() => resolve())), listener.drained?.()]);
      // Keep-alive sockets become idle as their in-flight requests finish: close them as
      // they do. Whatever is still running after the grace period is cut.
      server.closeIdleConnections();
      const sweep = setInterval(() => server.closeIdleConnections(), 50);
      const grace = setTimeout(() => {
        server.closeAllConnections();
        // Handed connections the HTTP server no longer tracks (upgraded ones) are cut too.
        if (listener.drained) void listener.close();
      }, 10000);
      await stopped;
      clearInterval(sweep);
      clearTimeout(grace);
    },
  };
}
