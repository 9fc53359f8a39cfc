import cluster from 'node:cluster';
import type { Command } from 'commander';
import { type Config, ConfigError, parseWorkers } from '../../server/config.js';
import type { BootstrapResult } from '../../server/domain/bootstrap.js';
import type { Store } from '../../server/domain/ports.js';
import type { CliIo } from '../main.js';
import { UserFacingError } from '../errors.js';
import { announceAdminPassword } from './admin-password.js';

export interface ServeOptions {
  port?: number;
  host?: string;
  database?: string;
  dataDir?: string;
  demo?: boolean;
  workers?: string;
}

export function registerServeCommand(program: Command, io: CliIo): void {
  program
    .command('serve')
    .description('run the HTTP server (checks the port and data directory, then migrates the database)')
    .option('--port <port>', 'port to listen on (env PORT)', parsePort)
    .option('--host <host>', 'address to bind (env HOST)')
    .option('--database <sqlite path or postgres URL>', 'database (env DATABASE_URL; default <data dir>/fieldops.sqlite3)')
    .option('--data-dir <dir>', 'where the SQLite file and uploads live (env FIELDOPS_DATA_DIR; default ./data)')
    .option('--demo', 'load the demo data into the default tenant when it is empty')
    .option('--workers <N|auto>', 'server processes sharing the port (node:cluster), or auto for one per core (env FIELDOPS_WORKERS; default 1: one process, no cluster)', checkWorkers)
    .action(async (options: ServeOptions) => {
      // The server is loaded only when `serve` runs: the client commands start faster.
      const { loadConfig } = await import('../../server/config.js');
      const overrides = { port: options.port, host: options.host, database: options.database, dataDir: options.dataDir, loadDemoData: options.demo, workers: options.workers };
      const config = loadConfig(io.env, overrides);
      if (cluster.isWorker) {
        const { runWorker } = await import('./serve-cluster.js');
        return runWorker((port) => loadConfig(io.env, { ...overrides, port }));
      }
      if (config.workers > 1) {
        const { runPrimary } = await import('./serve-cluster.js');
        return runPrimary(io, config);
      }
      await runSingle(io, config);
    });
}

/** One process, no cluster: binds, migrates, bootstraps and serves in itself. */
async function runSingle(io: CliIo, config: Config): Promise<void> {
  const { startServer, AdminCreatedError } = await import('../../server/main.js');
  let server;
  try {
    server = await startServer(config);
  } catch (error) {
    // Created `admin` with a generated password, then failed: say the password all the same.
    if (error instanceof AdminCreatedError) {
      io.stderr.write(`fieldops: created superuser "admin"; ${announceAdminPassword({ generatedAdminPassword: error.adminPassword, passwordKept: false }, null)}\n`);
      throw error.failure;
    }
    throw error;
  }
  const { runtime } = server;
  io.stderr.write(await banner({ url: server.url, config, description: runtime.database.description, store: runtime.store, bootstrap: server.bootstrap, demo: server.demo }));
  await waitForSignal();
  io.stderr.write('fieldops: shutting down (finishing in-flight requests)\n');
  await server.close();
  io.stderr.write('fieldops: stopped\n');
}

/** The start-up banner (stderr): where it listens, what it created, how to log in. */
export async function banner(facts: { url: string; config: Config; description: string; store: Store; bootstrap: BootstrapResult; demo: string[]; workers?: string }): Promise<string> {
  const { DEFAULT_TENANT } = await import('../../server/domain/bootstrap.js');
  const { url, config, bootstrap } = facts;
  const lines = [
    `fieldops is listening on ${url}`,
    `  database:  ${facts.description}`,
    `  data dir:  ${config.dataDir}`,
    ...(facts.workers ? [`  workers:   ${facts.workers}`] : []),
    `  API docs:  ${url}/api/docs   (OpenAPI 3.1: ${url}/api/openapi.json)`,
    `  metrics:   ${url}/metrics   (${config.metricsToken ? 'bearer FIELDOPS_METRICS_TOKEN, or ' : ''}a user with view_metrics)`,
    `  health:    ${url}/healthz   readiness: ${url}/readyz (${await readiness(facts.store)})`,
  ];
  if (bootstrap.initialised) {
    lines.push(`  created tenant "${DEFAULT_TENANT}", superuser "admin" and the public OAuth client "fieldops-cli"`);
    const password = announceAdminPassword(bootstrap, config.adminPasswordFile);
    if (password) lines.push(`  ${password}`);
  }
  for (const item of facts.demo) lines.push(`  loaded ${item}`);
  lines.push(`  log in:    curl -s -X POST ${url}/oauth2/token/ -d grant_type=password -d client_id=fieldops-cli -d username=admin --data-urlencode password=...`);
  return lines.join('\n') + '\n';
}

/** What /readyz would say now, in words. */
async function readiness(store: Store): Promise<string> {
  try {
    await store.ping();
    const pending = await store.pendingMigrations();
    return pending.length ? `not ready: ${pending.length} migration(s) pending` : 'ready';
  } catch {
    return 'not ready: the database is unreachable';
  }
}

export function waitForSignal(): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      resolve();
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });
}

/** Refused before anything starts; `loadConfig` turns the text into the count. */
function checkWorkers(value: string): string {
  try {
    parseWorkers(value, '--workers');
  } catch (error) {
    if (error instanceof ConfigError) throw new UserFacingError(error.message, error.hint, 2);
    throw error;
  }
  return value;
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UserFacingError(`--port must be 0-65535, got "${value}"`, undefined, 2);
  return port;
}
