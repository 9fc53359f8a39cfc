import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import t from 'tap';
import { openDatabase } from '../../server/db/knex.js';

const require = createRequire(import.meta.url);

/**
 * Another process holds SQLite's write lock for a while (as another `serve --workers` worker
 * does). A transaction here waits for it without holding this process's event loop: a timer
 * set after the transaction was asked for runs before the transaction begins. (better-sqlite3's
 * busy_timeout waits synchronously: the timer would only run after.)
 */
t.test('BEGIN IMMEDIATE waits for another process without blocking the event loop', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldops-begin-wait-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const filename = path.join(dir, 'db.sqlite3');
  const database = openDatabase({ dialect: 'sqlite', filename, synchronous: 'NORMAL' });
  t.teardown(() => database.close());
  await database.knex.schema.createTable('counter', (table) => table.integer('n'));
  await database.knex('counter').insert({ n: 0 });

  // The other process: takes the write lock, says so, holds it 800 ms, commits.
  const holder = spawn(process.execPath, ['-e', `
    const Database = require(${JSON.stringify(require.resolve('better-sqlite3'))});
    const db = new Database(${JSON.stringify(filename)});
    db.pragma('journal_mode = WAL');
    db.exec('BEGIN IMMEDIATE; UPDATE counter SET n = n + 1;');
    process.stdout.write('locked\\n');
    setTimeout(() => { db.exec('COMMIT'); db.close(); }, 800);
  `], { stdio: ['ignore', 'pipe', 'inherit'] });
  const holderClosed = new Promise((resolve) => holder.on('close', resolve));
  await new Promise<void>((resolve) => holder.stdout.once('data', () => resolve()));

  const order: string[] = [];
  const transaction = database.knex.transaction(async (trx) => {
    order.push('transaction began');
    await trx('counter').update({ n: database.knex.raw('n + 10') });
  });
  setTimeout(() => order.push('timer ran'), 50);
  await transaction;
  await holderClosed;
  t.same(order, ['timer ran', 'transaction began'], 'the event loop ran while the transaction waited');
  t.equal((await database.knex('counter').first('n'))!.n, 11, 'both writes are there, one after the other');
});
