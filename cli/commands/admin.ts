import type { Command } from 'commander';
import type { Runtime } from '../../server/main.js';
import type { CliIo } from '../main.js';
import { readSecret } from '../admin-secrets.js';

import { registerMigrateFiles } from './admin-migrate-files.js';
import { presetClient } from './client-presets.js';

const collect = (value: string, previous: string[] = []) => [...previous, value];

/**
 * `fieldops admin ...`: operations run directly on the database named by --database or
 * DATABASE_URL, with the same validation as the API.
 */
export function registerAdminCommands(program: Command, io: CliIo): void {
  const admin = program.command('admin').description('administer tenants, users, OAuth clients and the file store directly on the database and data dir');
  // `work` returns what to print, or null when it printed its own output.
  const withRuntime = async (options: { database?: string }, work: (runtime: Runtime) => Promise<string | null>) => {
    // The server is loaded only when an admin command runs: the rest of the CLI starts faster.
    const [{ loadConfig }, { openRuntime }, { createLogger }] = await Promise.all([
      import('../../server/config.js'),
      import('../../server/main.js'),
      import('../../server/logger.js'),
    ]);
    const config = loadConfig(io.env, { database: options.database });
    const runtime = await openRuntime(config, { logger: createLogger('warn') });
    try {
      const text = await work(runtime);
      if (text !== null) io.stdout.write(text + '\n');
    } finally {
      await runtime.close();
    }
  };
  const databaseOption = ['--database <sqlite path or postgres URL>', 'database (env DATABASE_URL)'] as const;
  const secretIo = { stderr: io.stderr, warn: (text: string) => io.stderr.write(`warning: ${text}\n`) };

  admin
    .command('create-tenant')
    .description('create a tenant (an isolated organisation: its own users, catalogs and data)')
    .requiredOption('--name <name>', 'tenant name')
    .option(...databaseOption)
    .action((options) => withRuntime(options, async ({ admin }) => `created tenant ${(await admin.createTenant(options.name)).name}`));

  admin
    .command('create-user')
    .description('create a user of a tenant (the password is prompted for on a terminal)')
    .requiredOption('--tenant <name>', 'tenant the user belongs to')
    .requiredOption('--username <username>', 'username (<=30 letters, digits, @.+-_)')
    .option('--password <password>', 'password (>=9 characters, not common, not all digits); visible in ps: prefer --password-stdin')
    .option('--password-stdin', 'read the password from standard input')
    .option('--email <email>')
    .option('--first-name <name>')
    .option('--last-name <name>')
    .option('--phone <+digits>')
    .option('--superuser', 'grant every permission')
    .option('--permission <codename>', 'grant a permission (repeatable)', collect, [])
    .option(...databaseOption)
    .action((options) =>
      withRuntime(options, async ({ admin }) => {
        const password = (await readSecret({ value: options.password, fromStdin: options.passwordStdin, flag: '--password', promptAs: 'password' }, secretIo))!;
        const user = await admin.createUser({ ...options, password, superuser: Boolean(options.superuser), permissions: options.permission });
        return `created user ${user.username} (${user.id})`;
      }),
    );

  admin
    .command('create-client')
    .description('register an OAuth client of a tenant: public (no secret), or confidential with --secret-stdin')
    .requiredOption('--tenant <name>', 'tenant the client belongs to')
    .option('--client-id <id>', 'client id (required unless --preset names one)')
    .option('--preset <preset>', 'web-app (das_web_client) | mobile-app (er_mobile_tracker): the original apps\' clients, earthranger profile')
    .option('--profile <profile>', 'response profile of its tokens: fieldops | earthranger (default: FIELDOPS_API_PROFILE)')
    .option('--secret <secret>', 'makes the client confidential (>=16 characters); visible in ps: prefer --secret-stdin')
    .option('--secret-stdin', 'read the secret from standard input (makes the client confidential)')
    .option('--grant <grant>', 'password | refresh_token | authorization_code (repeatable)', collect, [])
    .option('--redirect-uri <uri>', 'registered redirect URI (repeatable)', collect, [])
    .option('--permission <codename>', 'permission of the client as an application (repeatable)', collect, [])
    .option(...databaseOption)
    .action((options) =>
      withRuntime(options, async ({ admin }) => {
        const secret = await readSecret({ value: options.secret, fromStdin: options.secretStdin, flag: '--secret' }, secretIo);
        const spec = presetClient(options.preset, {
          tenant: options.tenant,
          clientId: options.clientId,
          secret,
          grants: options.grant,
          redirectUris: options.redirectUri,
          permissions: options.permission,
          profile: options.profile,
        });
        // Anyone who knows a public client's id can use it: permissions given to it are everyone's.
        if (spec.secret === undefined && spec.permissions?.length) {
          secretIo.warn(`a public client (no secret) acts with its permissions for anyone who knows its id "${spec.clientId}"; give it a secret (--secret-stdin) unless that is intended`);
        }
        const client = await admin.createClient(spec);
        return `created ${client.secretHash ? 'confidential' : 'public'} client ${client.clientId} (grants: ${client.grantTypes.join(', ')}), profile: ${client.profile ?? 'default'}`;
      }),
    );

  admin
    .command('set-client-profile')
    .description('change the response profile of a client\'s tokens (CONTRACT §11)')
    .requiredOption('--client-id <id>')
    .requiredOption('--profile <profile>', 'fieldops | earthranger | default')
    .option(...databaseOption)
    .action((options) =>
      withRuntime(options, async ({ admin }) => {
        const client = await admin.setClientProfile(options.clientId, options.profile);
        return `client ${client.clientId} now answers in the ${client.profile ?? 'default'} profile`;
      }),
    );

  admin
    .command('set-map')
    .description('set the map the web app opens on (served at /api/v1.0/maps)')
    .requiredOption('--tenant <name>')
    .requiredOption('--name <name>', 'map name')
    .requiredOption('--center <longitude,latitude>', 'center in degrees, e.g. 36.8,-1.3')
    .requiredOption('--zoom <zoom>', 'zoom level, 0-22')
    .option(...databaseOption)
    .action((options) =>
      withRuntime(options, async ({ services }) => {
        const [longitude, latitude] = String(options.center).split(',').map(Number);
        const map = await services.startup.setMap(options.tenant, { name: options.name, center: [longitude ?? NaN, latitude ?? NaN], zoom: Number(options.zoom) });
        return `map ${map.name} of ${options.tenant}: center ${map.center.join(',')}, zoom ${map.zoom}`;
      }),
    );

  admin
    .command('grant')
    .description('give a user more permissions (see the README for the codenames)')
    .requiredOption('--username <username>')
    .requiredOption('--permission <codename...>', 'one or more permission codenames')
    .option(...databaseOption)
    .action((options) =>
      withRuntime(options, async ({ admin }) => {
        const user = await admin.grant(options.username, options.permission);
        return `granted ${options.permission.join(', ')} to ${user.username}`;
      }),
    );

  admin
    .command('set-password')
    .description('set a user\'s password (e.g. a lost first-start admin password) and end the user\'s sessions')
    .requiredOption('--username <username>')
    .option('--password-stdin', 'read the password from standard input (otherwise prompted for on a terminal)')
    .option(...databaseOption)
    .action((options) =>
      withRuntime(options, async ({ admin }) => {
        const password = (await readSecret({ fromStdin: options.passwordStdin, flag: '--password', promptAs: 'password' }, secretIo))!;
        const user = await admin.setPassword(options.username, password);
        return `set the password of ${user.username}; its existing sessions are revoked`;
      }),
    );

  admin
    .command('add-profile')
    .description('let a user act as another user of the same tenant (User-Profile header)')
    .requiredOption('--username <username>')
    .requiredOption('--profile <username>')
    .option(...databaseOption)
    .action((options) =>
      withRuntime(options, async ({ admin }) => {
        await admin.addProfile(options.username, options.profile);
        return `${options.username} may now act as ${options.profile}`;
      }),
    );

  registerMigrateFiles(admin, io, withRuntime, databaseOption);
}
