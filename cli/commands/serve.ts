import type { Command } from 'commander';
import type { Store } from '../../server/domain/ports.js';
import type { CliIo } from '../main.js';
import { UserFacingError } from '../errors.js';

export function registerServeCommand(program: Command, io: CliIo): void {
  program
    .command('serve')
    .description('run the HTTP server (checks the port and data directory, then migrates the database)')
    .option('--port <port>', 'port to listen on (env PORT)', parsePort)
    .option('--host <host>', 'address to bind (env HOST)')
    .option('--database <sqlite path or postgres URL>', 'database (env DATABASE_URL; default <data dir>/fieldops.sqlite3)')
    .option('--data-dir <dir>', 'where the SQLite file and uploads live (env FIELDOPS_DATA_DIR; default ./data)')
    .option('--demo', 'load the demo data into the default tenant when it is empty')
    .action(async (options: { port?: number; host?: string; database?: string; dataDir?: string; demo?: boolean }) => {
      // The server is loaded only when `serve` runs: the client commands start faster.
      const [{ loadConfig }, { startServer, AdminCreatedError }, { DEFAULT_TENANT }] = await Promise.all([
        import('../../server/config.js'),
        import('../../server/main.js'),
        import('../../server/domain/bootstrap.js'),
      ]);
      const config = loadConfig(io.env, { port: options.port, host: options.host, database: options.database, dataDir: options.dataDir, loadDemoData: options.demo });
      let server;
      try {
        server = await startServer(config);
      } catch (error) {
        // Created `admin` with a generated password, then failed: say the password all the same.
        if (error instanceof AdminCreatedError) {
          io.stderr.write(`fieldops: created superuser "admin"; its password (shown only this once): ${error.adminPassword}\n`);
          throw error.failure;
        }
        throw error;
      }
      const { runtime, bootstrap } = server;
      const lines = [
        `fieldops is listening on ${server.url}`,
        `  database:  ${runtime.database.description}`,
        `  data dir:  ${config.dataDir}`,
        `  API docs:  ${server.url}/api/docs   (OpenAPI 3.1: ${server.url}/api/openapi.json)`,
        `  metrics:   ${server.url}/metrics   (${config.metricsToken ? 'bearer FIELDOPS_METRICS_TOKEN, or ' : ''}a user with view_metrics)`,
        `  health:    ${server.url}/healthz   readiness: ${server.url}/readyz (${await readiness(runtime.store)})`,
      ];
      if (bootstrap.initialised) {
        lines.push(`  created tenant "${DEFAULT_TENANT}", superuser "admin" and the public OAuth client "fieldops-cli"`);
        if (bootstrap.generatedAdminPassword) {
          lines.push(`  admin password (shown only this once): ${bootstrap.generatedAdminPassword}`);
        }
      }
      for (const item of server.demo) lines.push(`  loaded ${item}`);
      lines.push(
        `  log in:    curl -s -X POST ${server.url}/oauth2/token/ -d grant_type=password -d client_id=fieldops-cli -d username=admin --data-urlencode password=...`,
      );
      io.stderr.write(lines.join('\n') + '\n');
      await waitForSignal();
      io.stderr.write('fieldops: shutting down (finishing in-flight requests)\n');
      await server.close();
      io.stderr.write('fieldops: stopped\n');
    });
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

function waitForSignal(): Promise<void> {
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

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UserFacingError(`--port must be 0-65535, got "${value}"`, undefined, 2);
  return port;
}
