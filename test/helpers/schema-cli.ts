/**
 * Issue 28's `fieldops schema` tests: a server with the `wildlife_sighting` event type at two
 * revisions (revision 2 adds an integer `count`), a logged-in and synced CLI, and small readers.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Test } from 'tap';
import { sampleSchema, send } from './catalog.js';
import type { CliEnv } from './cli-env.js';
import { startTestServer, type TestServer } from './server.js';
import { EVENT_TYPES, SPECIES_REF, seedCatalog } from './sync-seed.js';
import { syncedCli } from '../sync/offline-fixtures.js';

export const TYPE = 'wildlife_sighting';
export { EVENT_TYPES, SPECIES_REF };

/** Revision 1's document (as created by seedCatalog). */
export const revisionOne = () => sampleSchema('notes', SPECIES_REF);

/** Revision 2: revision 1 plus an integer `count`. */
export function revisionTwo() {
  const doc = revisionOne() as any;
  doc.json.properties.count = { type: 'integer', title: 'Count', minimum: 0 };
  doc.ui.fields.count = { type: 'NUMERIC', parent: 'main' };
  doc.ui.sections.main.leftColumn.push({ name: 'count', type: 'field' });
  return doc;
}

export interface SchemaWorld {
  s: TestServer;
  token: string;
  cli: CliEnv;
}

export interface CopyWorld {
  source: TestServer;
  target: TestServer;
  sourceToken: string;
  targetToken: string;
}

/** Two servers (each its own database) with their admins' tokens, for `schema copy`. Null when the dialect cannot run. */
export async function copyWorld(t: Test): Promise<CopyWorld | null> {
  const source = await startTestServer(t);
  const target = await startTestServer(t);
  if (!source || !target) return null;
  const { access_token: sourceToken } = await source.login();
  const { access_token: targetToken } = await target.login();
  return { source, target, sourceToken, targetToken };
}

/** A server with the type at revision 2, and a CLI synced after it. Null when the dialect cannot run. */
export async function schemaWorld(t: Test): Promise<SchemaWorld | null> {
  const s = await startTestServer(t);
  if (!s) return null;
  const { access_token: token } = await s.login();
  await seedCatalog(s, token);
  await patchSchema(s, token, revisionTwo());
  const cli = await syncedCli(t, s.url);
  return { s, token, cli };
}

export async function patchSchema(s: TestServer, token: string, schema: unknown, value = TYPE): Promise<void> {
  const response = await s.json(`${EVENT_TYPES}/${value}`, send('PATCH', { schema }, token));
  if (response.status !== 200) throw new Error(`patch: ${response.status} ${JSON.stringify(response.body)}`);
}

/** How many history entries (revisions) the type has on the server. */
export async function revisions(s: TestServer, token: string, value = TYPE): Promise<number> {
  const response = await s.json(`${EVENT_TYPES}/${value}/updates?page_size=1`, { token });
  if (response.status !== 200) throw new Error(`updates: ${response.status} ${JSON.stringify(response.body)}`);
  return (response.body.data ?? response.body).count;
}

export async function currentSchema(s: TestServer, token: string, value = TYPE): Promise<unknown> {
  const response = await s.json(`${EVENT_TYPES}/${value}?include_schema=true`, { token });
  return (response.body.data ?? response.body).schema;
}

export function writeJson(cli: CliEnv, name: string, value: unknown): string {
  const file = path.join(cli.dir, name);
  fs.writeFileSync(file, JSON.stringify(value, null, 2));
  return file;
}
