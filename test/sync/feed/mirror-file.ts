import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import type { Test } from 'tap';
import { openMirrorDatabase } from '../../../sync/mirror/open.js';

/** A fresh mirror file (migrated) in its own folder, closed and removed at the test's end. */
export async function freshMirror(t: Test): Promise<Knex> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldops-feed-'));
  const knex = (await openMirrorDatabase(path.join(dir, 'm.sqlite3'), { create: true }))!;
  t.teardown(async () => {
    await knex.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return knex;
}
