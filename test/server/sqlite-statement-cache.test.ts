import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import t from 'tap';
import { openDatabase } from '../../server/db/knex.js';
import { cacheStatements } from '../../server/db/sqlite-client.js';
import { querySqlite } from '../../server/db/direct.js';

const require = createRequire(import.meta.url);
type Statement = { all(...values: unknown[]): unknown[]; run(...values: unknown[]): unknown };
type Connection = { prepare(source: string): Statement; pragma(source: string): unknown; exec(source: string): unknown; close(): void };
const Database = require('better-sqlite3') as new (filename: string) => Connection;

t.test('a prepared statement is reused per text, least recently used dropped first', async (t) => {
  const connection = cacheStatements(new Database(':memory:'), 2);
  t.teardown(() => connection.close());
  const one = connection.prepare('SELECT 1 AS n');
  t.equal(connection.prepare('SELECT 1 AS n'), one, 'the same text: the same statement');
  const two = connection.prepare('SELECT 2 AS n');
  connection.prepare('SELECT 1 AS n'); // used again: now the most recent
  connection.prepare('SELECT 3 AS n'); // the cache holds 2: "SELECT 2" goes
  t.equal(connection.prepare('SELECT 1 AS n'), one, 'the recently used one stays');
  t.not(connection.prepare('SELECT 2 AS n'), two, 'the least recently used one was dropped and is prepared anew');
  connection.pragma('user_version = 7');
  t.same(connection.pragma('user_version'), [{ user_version: 7 }], 'pragmas still work');
});

t.test('a cached statement stays right across a schema change', async (t) => {
  const connection = cacheStatements(new Database(':memory:'));
  t.teardown(() => connection.close());
  connection.exec('CREATE TABLE things (a INTEGER)');
  connection.prepare('INSERT INTO things (a) VALUES (?)').run(1);
  t.same(connection.prepare('SELECT * FROM things').all(), [{ a: 1 }]);
  connection.exec('ALTER TABLE things ADD COLUMN b TEXT DEFAULT \'x\'');
  t.same(connection.prepare('SELECT * FROM things').all(), [{ a: 1, b: 'x' }], 'the new column is there');
  connection.exec('DROP TABLE things');
  t.throws(() => connection.prepare('SELECT * FROM things').all(), /no such table/, 'a dropped table is an error, not stale rows');
});

t.test("the server's connections cache, and direct statements run inside knex's transactions", async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldops-statement-cache-'));
  const database = openDatabase({ dialect: 'sqlite', filename: path.join(dir, 'db.sqlite3'), synchronous: 'NORMAL' });
  t.teardown(async () => {
    await database.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const { knex } = database;
  await knex.schema.createTable('things', (table) => table.integer('a'));
  const seen: string[] = [];
  knex.on('query', (query: { sql: string }) => seen.push(query.sql));
  await t.rejects(
    knex.transaction(async (trx) => {
      await querySqlite(trx, 'INSERT INTO things (a) VALUES (?)', [1]);
      t.same(await querySqlite(trx, 'SELECT a FROM things', []), [{ a: 1 }], 'visible inside the transaction');
      throw new Error('roll back');
    }),
    /roll back/,
  );
  t.same(await querySqlite(knex, 'SELECT a FROM things', []), [], 'rolled back with it');
  t.ok(seen.includes('INSERT INTO things (a) VALUES (?)'), 'announced as a knex query');
  const connection = (await knex.client.acquireConnection()) as Connection;
  try {
    t.equal(connection.prepare('SELECT a FROM things'), connection.prepare('SELECT a FROM things'), 'the pool connection caches');
  } finally {
    await knex.client.releaseConnection(connection);
  }
});
