/**
 * What `startServer` checks before it touches the database: the data directory is usable and
 * the port can be bound. A first start that fails must fail before the admin user exists, so
 * its generated password is never created unprinted.
 */
import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import { ConfigError } from './config.js';
import { ensurePrivateDirSync } from './security/private-files.js';

/** Creates the data directory if needed (0700, as every directory we create) and proves it is a writable folder. */
export function checkDataDir(dir: string): void {
  const hint = 'choose another --data-dir (or FIELDOPS_DATA_DIR), or fix that path';
  try {
    ensurePrivateDirSync(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOTDIR' || code === 'EEXIST') throw new ConfigError(`the data directory ${dir} cannot be created: a part of that path is a regular file`, hint, { cause: error });
    if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') throw new ConfigError(`the data directory ${dir} cannot be created (${code})`, hint, { cause: error });
    throw error;
  }
  const probe = path.join(dir, `.fieldops-write-check-${process.pid}`);
  try {
    fs.writeFileSync(probe, '');
    fs.rmSync(probe, { force: true });
  } catch (error) {
    throw new ConfigError(`the data directory ${dir} is not writable (${(error as NodeJS.ErrnoException).code ?? 'error'})`, hint, { cause: error });
  }
}

/**
 * A listening HTTP server whose requests go to `handle` once it is set; until then (migrations
 * and first-start set-up are running) each request is answered 503 with a Retry-After.
 */
export interface Listener {
  server: http.Server;
  setHandler(handle: http.RequestListener): void;
  close(): Promise<void>;
  /** Resolves once every connection is closed, where `server.close` does not wait for them (a handed listener). */
  drained?(): Promise<void>;
}

function startingServer(): { server: http.Server; setHandler(handle: http.RequestListener): void } {
  let handle: http.RequestListener | null = null;
  const server = http.createServer((req, res) => {
    if (handle) return handle(req, res);
    res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
    res.end(JSON.stringify({ status: { code: 503, message: 'Service Unavailable', detail: 'The server is starting.' } }));
  });
  return { server, setHandler: (next) => void (handle = next) };
}

/**
 * A listener that binds nothing: its connections are handed to it (`adopt`), with the bytes
 * already read from them, by a cluster worker's primary (server/cluster/sticky.ts).
 */
export function handedListener(): Listener & { adopt(socket: net.Socket, head: Buffer): void } {
  const { server, setHandler } = startingServer();
  // NOTE: the HTTP server tracks its connections (idle closing, header and request timeouts)
  // from its 'listening' event on; it never listens itself, so it is told once here.
  server.emit('listening');
  const open = new Set<net.Socket>();
  let drainedWaiters: Array<() => void> = [];
  // A socket handed after the server began to close (the primary routed it before it heard
  // this worker drains) is cut: the client retries, and the primary picks another worker.
  let closing = false;
  const closeServer = server.close.bind(server);
  server.close = (callback) => {
    closing = true;
    return closeServer(callback);
  };
  return {
    server,
    setHandler,
    adopt: (socket, head) => {
      if (closing) return void socket.destroy();
      open.add(socket);
      socket.once('close', () => {
        open.delete(socket);
        if (open.size === 0) for (const resolve of drainedWaiters.splice(0)) resolve();
      });
      server.emit('connection', socket);
      // The HTTP parser reads the rest from the socket itself; the first bytes are given to it.
      socket.emit('data', head);
    },
    drained: () => (open.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => drainedWaiters.push(resolve))),
    close: async () => {
      for (const socket of open) socket.destroy();
      drainedWaiters = [];
      server.close();
    },
  };
}

export async function bindListener(port: number, host: string): Promise<Listener> {
  const { server, setHandler } = startingServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) => reject(describeListenError(error as NodeJS.ErrnoException, port, host)));
    server.listen(port, host, () => resolve());
  });
  return {
    server,
    setHandler,
    // Used when start-up fails: nothing was served, so open sockets (only ever 503s) are cut.
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export function describeListenError(error: NodeJS.ErrnoException, port: number, host: string): Error {
  const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  const options = { cause: error };
  if (error.code === 'EADDRINUSE') {
    return new ConfigError(`port ${port} is already in use (${where}); nothing was changed`, `stop what is listening there, or choose another port: --port ${port === 8000 ? 8001 : port + 1} (env PORT)`, options);
  }
  if (error.code === 'EACCES') return new ConfigError(`not allowed to listen on ${where}`, 'ports below 1024 need privileges: choose --port 1024 or above', options);
  if (error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND') {
    return new ConfigError(`cannot listen on ${where}: this machine has no such address`, 'use --host 127.0.0.1 (this machine only) or --host 0.0.0.0 (every interface)', options);
  }
  return error;
}
