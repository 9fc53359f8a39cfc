import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import knexFactory from 'knex';

export const pgAdminUrl = process.env.FIELDOPS_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A fresh database for one measurement: a SQLite file in a temp dir, or a new PostgreSQL database. */
export async function freshDatabase(dialect: string): Promise<{ location: string; drop(): Promise<void> }> {
  if (dialect === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldops-bench-'));
    return { location: path.join(dir, 'bench.sqlite3'), drop: async () => fs.rmSync(dir, { recursive: true, force: true }) };
  }
  const name = `fieldops_bench_${randomUUID().slice(0, 8)}`;
  const admin = knexFactory({ client: 'pg', connection: pgAdminUrl });
  await admin.raw(`CREATE DATABASE ${name}`);
  await admin.destroy();
  const url = new URL(pgAdminUrl);
  url.pathname = `/${name}`;
  return {
    location: url.toString(),
    drop: async () => {
      const dropper = knexFactory({ client: 'pg', connection: pgAdminUrl });
      await dropper.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await dropper.destroy();
    },
  };
}

/** Where a benchmark's server keeps its files: beside a SQLite file, or in a temp dir. */
export function dataDirFor(location: string): string {
  return /^postgres/i.test(location) ? fs.mkdtempSync(path.join(os.tmpdir(), 'fieldops-bench-data-')) : `${location}.data`;
}

export function parseArgs(argv: string[]): Map<string, string> {
  const args = new Map<string, string>();
  for (let i = 2; i < argv.length; i += 2) args.set(argv[i]!.replace(/^--/, ''), argv[i + 1] ?? '');
  return args;
}
