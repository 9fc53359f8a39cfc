import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { Test } from 'tap';
import { io } from 'socket.io-client';
import { type CliResult, runCli } from './cli.js';
import { type TestDatabase, createTestDatabaseFor } from './database.js';
import { type LoopDelay } from './loop-delay.js';
import type { RealtimeSession } from './realtime-session.js';
import { serveProcess } from './serve-process.js';

export const PASSWORD = 'Realtime-Bounds-Pass-1';
export const METRICS_TOKEN = 'realtime-metrics-scraper-token-24';

export interface RawAnswer {
  /** 0 when the server cut the connection (the message is in `body`). */
  status: number;
  body: string;
  headers: http.IncomingHttpHeaders;
}

/**
 * One HTTP request on a connection of its own, to the server under test (127.0.0.1). Never
 * rejects: a connection the server cuts answers status 0; no answer in `timeoutMs` is status 0 too.
 */
export function rawRequest(url: string, options: { method?: string; headers?: Record<string, string>; body?: string | Buffer; timeoutMs?: number } = {}): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const req = http.request(url, { method: options.method ?? 'GET', headers: options.headers, agent: false, timeout: options.timeoutMs ?? 30_000 }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body, headers: response.headers }));
      response.on('error', (error) => resolve({ status: 0, body: error.message, headers: {} }));
    });
    req.on('error', (error) => resolve({ status: 0, body: error.message, headers: {} }));
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url}`)));
    req.end(options.body);
  });
}

/** engine.io v4 payload separator (several packets in one long-polling body). */
export const SEPARATOR = '\x1e';

/** socket.io packets as engine.io `message` packets (`4` + socket.io type + namespace + data). */
export const sio = {
  connect: (nsp = '/das') => `40${nsp === '/' ? '' : `${nsp},`}`,
  event: (name: string, data?: unknown, nsp = '/das') => `42${nsp === '/' ? '' : `${nsp},`}${JSON.stringify(data === undefined ? [name] : [name, data])}`,
  authorization: (token: string, nsp = '/das') => sio.event('authorization', { type: 'authorization', id: 1, authorization: `Bearer ${token}` }, nsp),
};

/** A raw engine.io long-polling session, driven with plain HTTP requests. */
export class PollingSession {
  private constructor(
    readonly base: string,
    readonly sid: string,
    private readonly headers: Record<string, string>,
  ) {}

  /** Handshakes; rejects unless the server opens a session. */
  static async open(url: string, headers: Record<string, string> = {}): Promise<PollingSession> {
    const answer = await handshake(url, headers);
    if (answer.status !== 200 || !answer.sid) throw new Error(`handshake refused: ${answer.status} ${answer.body}`);
    return new PollingSession(url, answer.sid, headers);
  }

  private get path(): string {
    return `${this.base}/socket.io/?EIO=4&transport=polling&sid=${encodeURIComponent(this.sid)}`;
  }

  /** Posts one body of packets (joined with the separator when given a list). */
  post(packets: string | string[] | Buffer, contentType = 'text/plain;charset=UTF-8'): Promise<RawAnswer> {
    const body = Array.isArray(packets) ? packets.join(SEPARATOR) : packets;
    return rawRequest(this.path, { method: 'POST', headers: { ...this.headers, 'content-type': contentType }, body });
  }

  /** One poll: the engine.io packets it returns (it waits while the server has nothing to send). */
  async poll(): Promise<{ status: number; packets: string[]; body: string }> {
    const answer = await rawRequest(this.path, { headers: this.headers });
    return { status: answer.status, packets: answer.status === 200 ? answer.body.split(SEPARATOR) : [], body: answer.body };
  }

  /**
   * Joins a namespace (waiting for its acknowledgement: an event sent before it closes the
   * session), then sends `authorization` and reads the answer: its status code, 0 for none.
   */
  async authorize(token: string, nsp = '/das'): Promise<number> {
    await this.post(sio.connect(nsp));
    await this.pollUntil((packet) => packet.startsWith(sio.connect(nsp)));
    await this.post(sio.authorization(token, nsp));
    const answer = (await this.pollUntil((packet) => packet.includes('"resp_authorization"'))).find((packet) => packet.includes('"resp_authorization"'));
    return answer ? Number(/"code":(\d+)/.exec(answer)?.[1] ?? 0) : 0;
  }

  /**
   * A session authorised with `token` under a short authorization deadline: a try the deadline
   * closed before it was answered (no answer) is retried (up to `tries`), so how fast this machine answers
   * does not matter; once authorised, a session has no deadline.
   */
  static async authorized(url: string, token: string, tries = 10, headers: Record<string, string> = {}): Promise<PollingSession> {
    for (let i = 0; i < tries; i++) {
      const session = await PollingSession.open(url, headers);
      const status = await session.authorize(token);
      if (status === 200) return session;
      if (status !== 0) throw new Error(`authorization answered ${status}`);
    }
    throw new Error(`no session authorised in ${tries} tries`);
  }

  /** Polls until a packet matches (at most `polls` polls); every packet read, in order. */
  async pollUntil(match: (packet: string) => boolean, polls = 10): Promise<string[]> {
    const seen: string[] = [];
    for (let i = 0; i < polls; i++) {
      const { status, packets } = await this.poll();
      seen.push(...packets);
      if (status !== 200 || packets.some(match)) break;
    }
    return seen;
  }
}

/** A handshake request; `sid` when a session opened. */
export async function handshake(url: string, headers: Record<string, string> = {}): Promise<RawAnswer & { sid?: string }> {
  const answer = await rawRequest(`${url}/socket.io/?EIO=4&transport=polling`, { headers });
  if (answer.status !== 200 || !answer.body.startsWith('0')) return answer;
  return { ...answer, sid: (JSON.parse(answer.body.slice(1)) as { sid: string }).sid };
}

/** A Prometheus text exposition, read by metric name and labels. */
export class Scrape {
  constructor(readonly text: string) {}

  /** The sum of the samples of `name` whose labels include `labels` (0 when none). */
  value(name: string, labels: Record<string, string> = {}): number {
    let sum = 0;
    for (const line of this.text.split('\n')) {
      const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)$/.exec(line);
      if (!match || match[1] !== name) continue;
      const have = match[2] ?? '';
      if (Object.entries(labels).every(([key, value]) => have.includes(`${key}="${value}"`))) sum += Number(match[3]);
    }
    return sum;
  }

  has(name: string): boolean {
    return new RegExp(`^${name}(\\{|\\s)`, 'm').test(this.text);
  }
}

export interface RealtimeServer {
  url: string;
  db: TestDatabase;
  output(): string;
  /** An access token of a user (admin by default), by the password grant. */
  login(username?: string): Promise<string>;
  /** `fieldops admin <args>` on the server's database. */
  admin(args: string[]): Promise<CliResult>;
  metrics(): Promise<Scrape>;
  /**
   * The server's event-loop delay and CPU time while `work` ran, read from its own /metrics
   * (prom-client's loop monitor restarts at each scrape), for `heldLoop` of loop-delay.ts.
   */
  loopDelay<T>(work: () => Promise<T>): Promise<LoopDelay<T>>;
  /** Polls /metrics until `check` holds (at most `ms`); the last scrape. */
  until(check: (scrape: Scrape) => boolean, ms?: number): Promise<Scrape>;
  alive(): Promise<boolean>;
}

/**
 * The real `fieldops serve` in a child process over a fresh database of the dialect under test,
 * /metrics open to METRICS_TOKEN; killed and dropped after the test. null (and a skip) where
 * the dialect cannot run.
 */
export async function startRealtimeServer(t: Test, env: Record<string, string> = {}): Promise<RealtimeServer | null> {
  const db = await createTestDatabaseFor(t);
  if (!db) return null;
  const dataDir = db.dataDir;
  t.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const server = serveProcess({ DATABASE_URL: db.location, FIELDOPS_DATA_DIR: dataDir, FIELDOPS_ADMIN_PASSWORD: PASSWORD, FIELDOPS_METRICS_TOKEN: METRICS_TOKEN, ...env });
  t.teardown(async () => {
    server.child.kill('SIGKILL');
    await server.exited;
  });
  const url = await server.url;
  // prom-client's loop monitor restarts at each scrape: the longest delay since `loopDelay`
  // began is the largest of the scrapes made meanwhile.
  let longestLag = 0;
  const metrics = async () => {
    const answer = await rawRequest(`${url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    if (answer.status !== 200) throw new Error(`/metrics: ${answer.status} ${answer.body.slice(0, 200)}`);
    const scrape = new Scrape(answer.body);
    longestLag = Math.max(longestLag, scrape.value('fieldops_nodejs_eventloop_lag_max_seconds'));
    return scrape;
  };
  const cpuSeconds = (scrape: Scrape) => scrape.value('fieldops_process_cpu_user_seconds_total') + scrape.value('fieldops_process_cpu_system_seconds_total');
  return {
    url,
    db,
    output: server.output,
    async login(username = 'admin') {
      const body = new URLSearchParams({ grant_type: 'password', client_id: 'fieldops-cli', username, password: PASSWORD }).toString();
      const answer = await rawRequest(`${url}/oauth2/token/`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
      if (answer.status !== 200) throw new Error(`login ${username}: ${answer.status} ${answer.body}`);
      return (JSON.parse(answer.body) as { access_token: string }).access_token;
    },
    admin: (args) => runCli(['admin', ...args, '--database', db.location], { env: { FIELDOPS_DATA_DIR: dataDir } }),
    metrics,
    async loopDelay(work) {
      const before = await metrics();
      longestLag = 0;
      const result = await work();
      const after = await metrics();
      return { result, maxDelayMs: longestLag * 1000, cpuMs: (cpuSeconds(after) - cpuSeconds(before)) * 1000 };
    },
    async until(check, ms = 15_000) {
      const deadline = Date.now() + ms;
      let scrape = await metrics();
      while (!check(scrape) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        scrape = await metrics();
      }
      return scrape;
    },
    async alive() {
      return (await rawRequest(`${url}/healthz`, { timeoutMs: 10_000 })).status === 200;
    },
  };
}

/** Sends a JSON body with a token. */
export function jsonRequest(url: string, method: string, body: unknown, token: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  return rawRequest(url, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

/** `promise`, or `fallback` when it has not settled in `ms` (a bounded wait; the timer is cleared). */
export async function within<T>(promise: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<T>((resolve) => (timer = setTimeout(() => resolve(fallback), ms)));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * realtimeSession (test/helpers/realtime-session.ts) under a short authorization deadline: a try
 * the deadline closed before its answer (none) is retried (up to `tries`), so that how fast this machine
 * answers does not matter; once authorised, a session has no deadline.
 */
export async function authorizedSession(t: Test, url: string, token: string, options: { transports?: Array<'polling' | 'websocket'>; tries?: number } = {}): Promise<RealtimeSession> {
  const tries = options.tries ?? 10;
  for (let i = 0; i < tries; i++) {
    const socket = io(url + '/das', { path: '/socket.io', reconnection: false, forceNew: true, ...(options.transports ? { transports: options.transports } : {}) });
    t.teardown(() => void socket.close());
    const received: Array<[string, any]> = [];
    socket.onAny((type: string, payload: unknown) => received.push([type, payload]));
    const ended = new Promise<number>((resolve) => {
      socket.once('connect_error', () => resolve(0));
      socket.once('disconnect', () => resolve(0));
    });
    const connected = await Promise.race([new Promise<number>((resolve) => socket.once('connect', () => resolve(1))), ended]);
    if (connected) {
      const answer = new Promise<number>((resolve) => socket.once('resp_authorization', (message: { status: { code: number } }) => resolve(message.status.code)));
      socket.emit('authorization', { type: 'authorization', id: 1, authorization: `Bearer ${token}` });
      const status = await Promise.race([answer, ended]);
      if (status !== 0) return { socket, status, received };
    }
    socket.close();
  }
  throw new Error(`no realtime session authorised in ${tries} tries`);
}
