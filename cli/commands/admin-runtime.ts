/**
 * How every `fieldops admin ...` command opens the server's database: the same settings as
 * `serve` (DATABASE_URL or --database, FIELDOPS_DATA_DIR or --data-dir), named on the first
 * line of stderr (`using database: ...`, and `database` in --json output), and never created
 * unless --create says so: a command pointed at the wrong place says so instead of answering
 * "No tenant ..." from a database it has just made.
 */
import type { Command } from 'commander';
import type { Runtime } from '../../server/main.js';
import type { CliIo } from '../main.js';
import { UserFacingError } from '../errors.js';
import { announceAdminPassword } from './admin-password.js';

export interface AdminOptions {
  database?: string;
  dataDir?: string;
  create?: boolean;
  json?: boolean;
}

/** What a command prints on stdout: a text line, or with --json an object (beside `database`). */
export interface AdminOutput {
  text: string;
  json: Record<string, unknown>;
}

/** `work` returns what to print, or null when it printed its own output (it is given the database's location). */
export type WithRuntime = (options: AdminOptions, work: (runtime: Runtime, database: string) => Promise<AdminOutput | null>) => Promise<void>;

/** The options every admin command takes. */
export function adminOptions(command: Command, options: { json?: boolean } = {}): Command {
  command
    .option('--database <sqlite path or postgres URL>', 'the server\'s database (env DATABASE_URL; default <data dir>/fieldops.sqlite3)')
    .option('--data-dir <dir>', 'the server\'s data directory (env FIELDOPS_DATA_DIR; default ./data)')
    .option('--create', 'set up a new database (as the first start of `serve` does) if there is none; without it, a missing database is an error');
  if (options.json !== false) command.option('--json', 'the result as JSON on stdout (with the database used)');
  return command;
}

export function adminRuntime(io: CliIo): WithRuntime {
  return async (options, work) => {
    // The server is loaded only when an admin command runs: the rest of the CLI starts faster.
    const [{ loadConfig }, { openRuntime, bootstrapDatabase }, { createLogger }, { databaseLocation }, { checkAdminPasswordFile }, { NotFoundError }, { AdminLookupError }] = await Promise.all([
      import('../../server/config.js'),
      import('../../server/main.js'),
      import('../../server/logger.js'),
      import('../../server/db/knex.js'),
      import('../../server/admin-password-file.js'),
      import('../../server/domain/errors.js'),
      import('../../server/domain/admin.js'),
    ]);
    const config = loadConfig(io.env, { database: options.database, dataDir: options.dataDir });
    const database = databaseLocation(config.database);
    io.stderr.write(`using database: ${database}\n`);
    if (options.create && config.adminPasswordFile && !config.adminPassword) checkAdminPasswordFile(config.adminPasswordFile);
    const runtime = await openRuntime(config, { logger: createLogger('warn'), create: Boolean(options.create) });
    try {
      if (options.create) {
        const bootstrap = await bootstrapDatabase(runtime);
        if (bootstrap.initialised) {
          const password = announceAdminPassword(bootstrap, config.adminPasswordFile) ?? 'its password is FIELDOPS_ADMIN_PASSWORD';
          io.stderr.write(`created the database: tenant "default", superuser "admin" and the OAuth client "fieldops-cli"; ${password}\n`);
        }
      }
      const output = await work(runtime, database);
      if (output) io.stdout.write((options.json ? JSON.stringify({ database, ...output.json }) : output.text) + '\n');
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
      // A name that is not there may be in another database: the one used is named above.
      const elsewhere = `if the server has it, this is not the server's database (using database: ${database}): point DATABASE_URL, --database or --data-dir at the server's`;
      const hint = error instanceof AdminLookupError && error.hint ? `${error.hint}; or, ${elsewhere}` : elsewhere;
      throw new UserFacingError(error.message, hint, 1, { cause: error });
    } finally {
      await runtime.close();
    }
  };
}
