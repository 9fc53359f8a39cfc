/**
 * Prints the OpenAPI document of the route table to stdout, or writes it to the file named by
 * the first argument: `node dist/server/http/openapi/emit.js openapi.json` (CI lints it). The
 * table is the server's own, built over a throw-away SQLite database.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { loadConfig } from '../../config.js';
import { openRuntime } from '../../main.js';
import { createLogger } from '../../logger.js';
import { routeTable } from '../routes/index.js';
import { packageRoot } from '../../domain/users/common-passwords.js';
import { buildOpenApiDocument } from './document.js';

export async function emitOpenApiDocument(): Promise<Record<string, unknown>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldops-openapi-'));
  const silent = createLogger('silent', new Writable({ write: (_chunk, _encoding, done) => done() }));
  const runtime = await openRuntime(loadConfig({ FIELDOPS_DATA_DIR: dir, FIELDOPS_PATROL_SWEEP_SECONDS: '0' }), { logger: silent });
  try {
    const version = (JSON.parse(fs.readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
    return buildOpenApiDocument(routeTable(runtime.services), version);
  } finally {
    await runtime.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === new URL(`file://${path.resolve(process.argv[1])}`).href) {
  const text = JSON.stringify(await emitOpenApiDocument(), null, 2) + '\n';
  if (process.argv[2]) fs.writeFileSync(process.argv[2], text);
  else process.stdout.write(text);
}
