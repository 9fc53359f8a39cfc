import type { Command } from 'commander';
import type { Runtime } from '../../server/main.js';
import type { CliIo } from '../main.js';

import { presetClient } from './client-presets.js';

const collect = (value: string, previous: string[] = []) => [...previous, value];

/**
 * `fieldops admin ...`: operations run directly on the database named by --database or
 * DATABASE_URL, with the same validation as the API.
 */
export function registerAdminCommands(program: Command, io: CliIo): void {
  const admin = program.command('admin').description('administer tenants, users and OAuth clients directly on the database');
  const withRuntime = async (options: { database?: string }, work: (runtime: Runtime) => Promise<string>) => {
    // The server is loaded only when an admin command runs: the rest of the CLI starts faster.
    const [{ loadConfig }, { openRuntime }, { createLogger }] = await Promise.all([
      import('../../server/config.js'),
      import('../../server/main.js'),
      import('../../server/logger.js'),
    ]);
    const config = loadConfig(io.env, { database: options.database });
    const runtime = await openRuntime(config, { logger: createLogger('warn') });
    try {
      io.stdout.write((await work(runtime)) + '\n');
    } finally {
      await runtime.close();
    }
  };
  const databaseOption = ['--database <sqlite path or postgres URL>', 'database (env DATABASE_URL)'] as const;

  admin
    .command('create-tenant')
    .requiredOption('--name <name>', 'tenant name')
    .option(...databaseOption)
    .action((options) => withRuntime(options, async ({ admin }) => `created tenant ${(await admin.createTenant(options.name)).name}`));

  admin
    .command('create-user')
    .requiredOption('--tenant <name>', 'tenant the user belongs to')
    .requiredOption('--username <username>', 'username (<=30 letters, digits, @.+-_)')
    .requiredOption('--password <password>', 'password (>=9 characters, not common, not all digits)')
    .option('--email <email>')
    .option('--first-name <name>')
    .option('--last-name <name>')
    .option('--phone <+digits>')
    .option('--superuser', 'grant every permission')
    .option('--permission <codename>', 'grant a permission (repeatable)', collect, [])
    .option(...databaseOption)
    .action((options) =>
      withRuntime(options, async ({ admin }) => {
        const user = await admin.createUser({ ...options, superuser: Boolean(options.superuser), permissions: options.permission });
        return `created user ${user.username} (${user.id})`;
      }),
    );

  admin
    .command('create-client')
    .requiredOption('--tenant <name>', 'tenant the client belongs to')
    .option('--client-id <id>', 'client id (required unless --preset names one)')
    .option('--preset <preset>', 'web-app (das_web_client) | mobile-app (er_mobile_tracker): the original apps\' clients, earthranger profile')
    .option('--profile <profile>', 'response profile of its tokens: fieldops | earthranger (default: FIELDOPS_API_PROFILE)')
    .option('--secret <secret>', 'makes the client confidential (>=16 characters)')
    .option('--grant <grant>', 'password | refresh_token | authorization_code (repeatable)', collect, [])
    .option('--redirect-uri <uri>', 'registered redirect URI (repeatable)', collect, [])
    .option('--permission <codename>', 'permission of the client as an application (repeatable)', collect, [])
    .option(...databaseOption)
    .action((options) =>
      withRuntime(options, async ({ admin }) => {
        const client = await admin.createClient(
          presetClient(options.preset, {
            tenant: options.tenant,
            clientId: options.clientId,
            secret: options.secret,
            grants: options.grant,
            redirectUris: options.redirectUri,
            permissions: options.permission,
            profile: options.profile,
          }),
        );
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
}
