/**
 * Measurements for the sync feed benchmark (bench/sync-feed.ts), in-process against a real
 * `fieldops serve`: the feed pull (runFeed into an SQLite mirror) and the older pull (runSync for
 * the catalogs, then runPull), each over countingTransport so that requests and bytes on the
 * wire (compressed bodies as received) are counted; the feed's read rate; the mirror's apply rate.
 */
import fs from 'node:fs';
import type { Knex } from 'knex';
import type { FeedPage } from '../../protocol/sync.js';
import { authorizedTransport, tokenSession } from '../../sync/auth/session.js';
import { countingTransport } from '../../sync/counting.js';
import { runSync } from '../../sync/engine/run-sync.js';
import { applyPage } from '../../sync/feed/apply.js';
import { FeedClient } from '../../sync/feed/client.js';
import { runFeed, type FeedReport } from '../../sync/feed/run-feed.js';
import type { Transport } from '../../sync/http.js';
import { KnexMirrorStore } from '../../sync/mirror/knex-store.js';
import { openMirrorDatabase } from '../../sync/mirror/open.js';
import { runPull } from '../../sync/pull/run-pull.js';
import { sleep } from '../../sync/retry.js';

export const ms = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;

export interface Wire {
  requests: number;
  bytes: number;
  ms: number;
}

export interface Server {
  origin: string;
  token: string;
  transport: Transport;
}

async function mirror(file: string): Promise<Knex> {
  const knex = await openMirrorDatabase(file, { create: true });
  if (!knex) throw new Error(`could not open the mirror ${file}`);
  return knex;
}

/** One feed pull (runFeed) into the mirror file (created when missing). */
export async function feedPull(server: Server, file: string, options: { scopes?: string[]; limit?: number } = {}): Promise<Wire & { report: FeedReport }> {
  const knex = await mirror(file);
  const wire = countingTransport(server.transport);
  const transport = authorizedTransport(wire.transport, tokenSession(server.origin, server.token));
  const client = new FeedClient({ transport, server: server.origin, attempts: 1 });
  try {
    const started = process.hrtime.bigint();
    const report = await runFeed({
      knex, client, server: server.origin, username: 'admin', scopes: options.scopes, repair: true, limit: options.limit,
      userId: async () => null,
      fallback: async () => {
        throw new Error('the feed fell back to the older pull (the server answered 404 or 503)');
      },
      now: Date.now, wait: sleep,
    });
    return { report, requests: wire.log.requests(), bytes: wire.log.bytes(), ms: ms(started) };
  } finally {
    await knex.destroy();
  }
}

/** The older pull on a fresh mirror, as `fieldops sync` then `fieldops pull` ran it before the feed. */
export async function olderPull(server: Server, file: string): Promise<Wire & { records: number }> {
  const knex = await mirror(file);
  const wire = countingTransport(server.transport);
  const transport = authorizedTransport(wire.transport, tokenSession(server.origin, server.token));
  try {
    const started = process.hrtime.bigint();
    await runSync({ transport, server: server.origin, username: 'admin', store: new KnexMirrorStore(knex) });
    const pulled = await runPull({ transport, server: server.origin, knex, now: Date.now });
    return { records: pulled.reduce((n, r) => n + r.received, 0), requests: wire.log.requests(), bytes: wire.log.bytes(), ms: ms(started) };
  } finally {
    await knex.destroy();
  }
}

/** The older catalog sync alone (what a renamed type cost before the feed). */
export async function olderCatalogSync(server: Server, file: string): Promise<Wire> {
  const knex = await mirror(file);
  const wire = countingTransport(server.transport);
  const transport = authorizedTransport(wire.transport, tokenSession(server.origin, server.token));
  try {
    const started = process.hrtime.bigint();
    await runSync({ transport, server: server.origin, username: 'admin', store: new KnexMirrorStore(knex) });
    return { requests: wire.log.requests(), bytes: wire.log.bytes(), ms: ms(started) };
  } finally {
    await knex.destroy();
  }
}

function client(server: Server): FeedClient {
  return new FeedClient({ transport: authorizedTransport(server.transport, tokenSession(server.origin, server.token)), server: server.origin, attempts: 1 });
}

/** Waits until the feed answers (the backfill is done: no more 503 sync_preparing); `meanwhile` runs between polls. */
export async function waitForFeed(server: Server, timeoutMs: number, meanwhile?: () => Promise<void>): Promise<number> {
  const started = process.hrtime.bigint();
  const feed = client(server);
  for (;;) {
    const answer = await feed.changes({ cursor: null, scopes: ['cat:event_types'], limit: 1 });
    if (answer.kind === 'page') return ms(started);
    if (answer.kind !== 'preparing') throw new Error(`the feed answered ${answer.kind}`);
    if (ms(started) > timeoutMs) throw new Error(`the backfill did not finish within ${timeoutMs} ms`);
    await sleep(500);
    await meanwhile?.();
  }
}

/** Reads the whole feed for `scopes` from the start, `limit` per page; keeps the pages. */
export async function readFeed(server: Server, scopes: string[], limit: number): Promise<{ changes: number; ms: number; pages: FeedPage[] }> {
  const feed = client(server);
  const pages: FeedPage[] = [];
  let cursor: string | null = null;
  let changes = 0;
  const started = process.hrtime.bigint();
  for (;;) {
    const answer = await feed.changes({ cursor, scopes, limit });
    if (answer.kind !== 'page') throw new Error(`the feed answered ${answer.kind}`);
    pages.push(answer.page);
    changes += answer.page.changes.length;
    cursor = answer.page.cursor;
    if (!answer.page.has_more) break;
  }
  return { changes, ms: ms(started), pages };
}

/** Applies pages already read into a fresh mirror, timed alone (records per second). */
export async function applyPages(file: string, pages: FeedPage[]): Promise<{ records: number; ms: number }> {
  fs.rmSync(file, { force: true });
  const knex = await mirror(file);
  try {
    let records = 0;
    const started = process.hrtime.bigint();
    for (const page of pages) {
      await applyPage(knex, page, { sweep: !page.has_more });
      records += page.changes.length;
    }
    return { records, ms: ms(started) };
  } finally {
    await knex.destroy();
  }
}

/** Distinct records a mirror holds through the feed (record_scopes). */
export async function mirrorRecords(file: string): Promise<number> {
  const knex = await mirror(file);
  try {
    const row = await knex.from(knex('record_scopes').distinct('kind', 'id').as('d')).count({ n: '*' }).first();
    return Number(row?.n ?? 0);
  } finally {
    await knex.destroy();
  }
}
