import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.ttf': 'font/ttf',
};

/**
 * Paths the app calls on its own origin that belong to the service: the API prefixes, and the
 * icons the service serves under /static/sprite-src/ (subjects' and events' `image_url`; the
 * build's own files are under /static/js, /static/css and /static/media).
 */
const API = /^\/((api|oauth2|v2\.0|socket\.io)(\/|$)|static\/sprite-src\/)/;

export interface CallRecord {
  method: string;
  path: string;
  status: number;
}

/**
 * The web app's build and the service on one origin (as the app is deployed): static files
 * from `buildDir` (unknown paths answer index.html: the app routes on the client), the API
 * prefixes forwarded to `serviceUrl`, WebSocket upgrades included, with the browser's `Host`
 * (as a deployment's reverse proxy passes it: the absolute URLs the service answers, such as
 * icons' `image_url`, then point at this origin). Every forwarded call is recorded with its status.
 */
export async function startWebOrigin(buildDir: string, serviceUrl: string): Promise<{ url: string; calls: CallRecord[]; close(): Promise<void> }> {
  const calls: CallRecord[] = [];
  const service = new URL(serviceUrl);
  const root = path.resolve(buildDir);
  const sockets = new Set<Duplex>();
  const server = http.createServer((req, res) => {
    const url = req.url ?? '/';
    const pathname = url.split('?')[0]!;
    if (API.test(pathname)) {
      const upstream = http.request(
        { host: service.hostname, port: service.port, method: req.method, path: url, headers: req.headers },
        (answer) => {
          calls.push({ method: req.method ?? 'GET', path: url, status: answer.statusCode ?? 0 });
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => {
        calls.push({ method: req.method ?? 'GET', path: url, status: 502 });
        res.writeHead(502).end();
      });
      req.pipe(upstream);
      return;
    }
    let file = path.join(root, decodeURIComponent(pathname));
    if (!file.startsWith(root) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) file = path.join(root, 'index.html');
    res.writeHead(200, { 'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream' });
    fs.createReadStream(file).pipe(res);
  });
  // WebSocket upgrades of the API prefixes (the app's realtime channel) go to the service too:
  // the upgrade request is replayed upstream and, once the service switches protocols, the two
  // sockets are joined. Recorded as 101 (or the service's refusal).
  server.on('upgrade', (req: http.IncomingMessage, client: Duplex, head: Buffer) => {
    const url = req.url ?? '/';
    const record = (status: number) => calls.push({ method: req.method ?? 'GET', path: url, status });
    if (!API.test(url.split('?')[0]!)) return void client.destroy();
    const upstream = http.request({ host: service.hostname, port: service.port, method: req.method, path: url, headers: req.headers });
    upstream.on('upgrade', (answer, socket, upstreamHead) => {
      record(answer.statusCode ?? 101);
      const lines = [`HTTP/1.1 ${answer.statusCode} ${answer.statusMessage}`];
      for (let i = 0; i < answer.rawHeaders.length; i += 2) lines.push(`${answer.rawHeaders[i]}: ${answer.rawHeaders[i + 1]}`);
      client.write(lines.join('\r\n') + '\r\n\r\n');
      if (upstreamHead.length > 0) client.write(upstreamHead);
      if (head.length > 0) socket.write(head);
      socket.pipe(client).pipe(socket);
      socket.on('error', () => client.destroy());
      client.on('error', () => socket.destroy());
      for (const end of [socket, client]) {
        sockets.add(end);
        end.on('close', () => sockets.delete(end));
      }
    });
    upstream.on('response', (answer) => {
      record(answer.statusCode ?? 0);
      client.end(`HTTP/1.1 ${answer.statusCode} ${answer.statusMessage}\r\nConnection: close\r\n\r\n`);
      answer.resume();
    });
    upstream.on('error', () => {
      record(502);
      client.destroy();
    });
    upstream.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
