/**
 * Issue 24 item 13 a and b: a server URL without a scheme is refused with both forms shown; TLS
 * failures (https to a plain http port, a self-signed certificate) are an error and a hint in
 * our words, without OpenSSL's text, and not retried; a URL that points at something other than
 * the API (a wrong path, another web server) says so, with the status and content type seen,
 * never oauth4webapi's wording. The real binary against a real server.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import t, { type Test } from 'tap';
import type { CliResult } from '../helpers/cli.js';
import { cliEnv } from '../helpers/cli-env.js';
import { startTestServer } from '../helpers/server.js';

const STACK = /\n\s+at \S/;
const OPENSSL = /ssl3_|SSL routines|openssl|\.c:\d+|0A0001|error:[0-9A-F]{8}/i;
const OAUTH_LIBRARY = /conform|"response"|oauth4webapi|OperationProcessingError/i;

function expectUserError(t: Test, result: CliResult, message: RegExp, hint: RegExp, code = 1) {
  t.equal(result.code, code, `exit ${code} (${result.stderr})`);
  t.match(result.stderr, message);
  t.match(result.stderr, hint);
  t.notMatch(result.stderr, STACK, 'no stack');
  t.notMatch(result.stderr, OPENSSL, 'no OpenSSL text');
  t.notMatch(result.stderr, OAUTH_LIBRARY, 'no OAuth library text');
}

async function listen(t: Test, server: http.Server | https.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  }));
  return (server.address() as AddressInfo).port;
}

t.test('server URLs and what answers at them', async (t) => {
  // Trusting X-Forwarded-Proto, as a server behind a TLS proxy is configured.
  const s = await startTestServer(t, { env: { FIELDOPS_TRUST_PROXY: 'true' } });
  if (!s) return;
  const cli = cliEnv(t, { FIELDOPS_RETRIES: '3' });
  const port = new URL(s.url).port;
  const login = (server: string, env: Record<string, string> = {}) => cli.run(['login', '--server', server, '--username', 'admin', '--password-stdin'], { input: 'Test-Superuser-Passphrase-7\n', env });

  await t.test('no scheme: refused, with both forms', async (t) => {
    for (const given of [`127.0.0.1:${port}`, `localhost:${port}`, 'example.org:8000', 'example.org']) {
      const result = await login(given);
      const bare = given.replace(/[.]/g, '\\.');
      expectUserError(t, result, new RegExp(`^error: the server URL "${bare}" has no scheme \\(http:// or https://\\)$`, 'm'), new RegExp(`^hint: give it as https://${bare} \\(a server with TLS\\) or http://${bare} \\(without TLS`, 'm'), 2);
    }
    const positional = await cli.run(['login', `127.0.0.1:${port}`, '--username', 'admin', '--password-stdin'], { input: 'x\n' });
    t.match(positional, { code: 2, stderr: /has no scheme/ }, 'the URL as an argument (`fieldops login example.org:8000`) the same');
    const token = await cli.run(['whoami'], { env: { FIELDOPS_TOKEN: 'x', FIELDOPS_SERVER: `127.0.0.1:${port}` } });
    t.match(token.stderr, /has no scheme/, 'FIELDOPS_SERVER the same');
    t.equal((await login(s.url)).code, 0, 'with its scheme it logs in');
  });

  await t.test('https to a plain http port: a TLS error in words, not retried', async (t) => {
    const result = await login(`https://127.0.0.1:${port}`);
    expectUserError(t, result, new RegExp(`^error: cannot reach https://127\\.0\\.0\\.1:${port}: the TLS handshake failed: the server did not answer in TLS \\(is it a plain http server\\?\\) \\(ERR_SSL_WRONG_VERSION_NUMBER\\)$`, 'm'), new RegExp(`^hint: if the server has no TLS, give its URL as http://127\\.0\\.0\\.1:${port}; otherwise check the port$`, 'm'));
    t.notMatch(result.stderr, /retrying/, 'a TLS failure is not retried');
  });

  await t.test('a self-signed certificate: not trusted, and the hint that fixes it works', async (t) => {
    const dir = fs.mkdtempSync(path.join(cli.dir, 'tls-'));
    const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem')], { encoding: 'utf8' });
    if (made.status !== 0) return void t.pass('skipped', { skip: `openssl could not make a certificate here: ${made.stderr || made.error?.message}` });
    // A TLS front for the test server, as a reverse proxy would be.
    let proto: string | null = null;
    const front = https.createServer({ key: fs.readFileSync(path.join(dir, 'key.pem')), cert: fs.readFileSync(path.join(dir, 'cert.pem')) }, (request, response) => {
      const headers = proto ? { ...request.headers, 'x-forwarded-proto': proto } : request.headers;
      const forward = http.request(`${s.url}${request.url}`, { method: request.method, headers }, (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      });
      forward.on('error', () => response.destroy());
      request.pipe(forward);
    });
    const tlsPort = await listen(t, front);
    const url = `https://127.0.0.1:${tlsPort}`;
    const result = await login(url);
    expectUserError(t, result, /^error: cannot reach https:\/\/127\.0\.0\.1:\d+: the server's TLS certificate is not trusted \(self-signed, or from an unknown authority\) \(DEPTH_ZERO_SELF_SIGNED_CERT\)$/m, /^hint: .*NODE_EXTRA_CA_CERTS/m);
    t.notMatch(result.stderr, /retrying/);
    const trust = { NODE_EXTRA_CA_CERTS: path.join(dir, 'cert.pem') };
    // Trusted as the hint says, the handshake works; a server not told of its proxy is said to be so.
    const unaware = await login(url, trust);
    expectUserError(t, unaware, new RegExp(`^error: the server at ${url.replace(/[.]/g, '\\.')} describes itself as http://127\\.0\\.0\\.1:${tlsPort} \\(its OAuth metadata\\)$`, 'm'), /^hint: if it is behind a reverse proxy, its administrator sets FIELDOPS_TRUST_PROXY=true/m);
    proto = 'https';
    const trusted = await login(url, trust);
    t.equal(trusted.code, 0, `a server that knows its proxy: the login works: ${trusted.stderr}`);
  });

  await t.test('a wrong path: not a fieldops server there, with what answered', async (t) => {
    for (const suffix of ['/wrong', '/api/docs']) {
      const result = await login(`${s.url}${suffix}`);
      expectUserError(
        t,
        result,
        new RegExp(`^error: the server at ${s.url.replace(/[.]/g, '\\.')}${suffix} did not answer as a fieldops/EarthRanger server \\(HTTP 404, application/json from ${suffix}/oauth2/token/\\)$`, 'm'),
        /^hint: check the server URL: it is the address the API is served at, such as https:\/\/host\[:port\], with no path after it/m,
      );
    }
  });

  await t.test('another web server altogether', async (t) => {
    const page = '<!doctype html><title>Welcome to nginx!</title>';
    const other = http.createServer((request, response) => {
      request.resume();
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(page);
    });
    const otherPort = await listen(t, other);
    const result = await login(`http://127.0.0.1:${otherPort}`);
    expectUserError(t, result, new RegExp(`^error: the server at http://127\\.0\\.0\\.1:${otherPort} did not answer as a fieldops/EarthRanger server \\(HTTP 200, text/html from /\\.well-known/oauth-authorization-server\\)$`, 'm'), /^hint: check the server URL/m);
  });
});
