import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The baseline: plain node:http answering one request from memory, with the same body, ETag
 * and If-None-Match handling that fieldops does. Run as a child process:
 * `node bare-server.js <body file> <etag>`; prints its port.
 */
const [bodyFile, etag] = process.argv.slice(2) as [string, string];
const body = fs.readFileSync(bodyFile);
const server = http.createServer((request, response) => {
  if (request.headers['if-none-match'] === etag) {
    response.writeHead(304, { ETag: etag, 'Cache-Control': 'private, no-cache' });
    response.end();
    return;
  }
  response.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length, ETag: etag, 'Cache-Control': 'private, no-cache' });
  response.end(body);
});
server.keepAliveTimeout = 5000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`${(server.address() as AddressInfo).port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
