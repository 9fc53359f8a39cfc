import type { Command } from 'commander';
import type { CliIo } from '../main.js';
import { readSecret } from '../admin-secrets.js';
import { EXIT, UserFacingError } from '../errors.js';

import { registerMigrateFiles } from './admin-migrate-files.js';
import { registerAdminFeatures } from './admin-features.js';
import { adminOptions, adminRuntime } from './admin-runtime.js';
import { presetClient } from './client-presets.js';
import { PERMISSIONS } from '../../server/domain/permissions.js';

/** Words in lines of at most `width` characters, each indented. */
function wrap(text: string, width: number, indent: string): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && indent.length + line.length + 1 + word.length > width) {
      lines.push(indent + line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(indent + line);
  return lines.join('\n');
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** `3 failed attempts`, `1 failed attempt`. */
const attempts = (count: number) => `${count} failed attempt${count === 1 ? '' : 's'}`;

/**
 * `fieldops admin ...`: operations run directly on the server's database (named by --database
 * or DATABASE_URL, else found in --data-dir or FIELDOPS_DATA_DIR), with the same validation as
 * the API. See admin-runtime.ts for how the database is opened.
 */
export function registerAdminCommands(program: Command, io: CliIo): void {
  const admin = program.command('admin').description('administer tenants, users, OAuth clients and the file store directly on the server\'s database and data dir');
  const withRuntime = adminRuntime(io);
  const secretIo = { stderr: io.stderr, warn: (text: string) => io.stderr.write(`warning: ${text}\n`) };

  adminOptions(admin.command('create-tenant').description('create a tenant (an isolated organisation: its own users, catalogs and data)'))
    .requiredOption('--name <name>', 'tenant name')
    .action((options) =>
      withRuntime(options, async ({ admin }) => {
        const tenant = await admin.createTenant(options.name);
        return { text: `created tenant ${tenant.name}`, json: { tenant: { id: tenant.id, name: tenant.name } } };
      }),
    );

  adminOptions(admin.command('create-user').description('create a user of a tenant (the password is prompted for on a terminal)'))
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
    .action((options) =>
      withRuntime(options, async ({ admin }) => {
        const password = (await readSecret({ value: options.password, fromStdin: options.passwordStdin, flag: '--password', promptAs: 'password' }, secretIo))!;
        const user = await admin.createUser({ ...options, password, superuser: Boolean(options.superuser), permissions: options.permission });
        return {
          text: `created user ${user.username} (${user.id})`,
          json: { user: { id: user.id, username: user.username, tenant: options.tenant, superuser: user.isSuperuser, permissions: [...new Set<string>(options.permission)] } },
        };
      }),
    );

  adminOptions(admin.command('create-client').description('register an OAuth client of a tenant: public (no secret), or confidential with --secret-stdin'))
    .requiredOption('--tenant <name>', 'tenant the client belongs to')
    .option('--client-id <id>', 'client id (required unless --preset names one)')
    .option('--preset <preset>', 'web-app (das_web_client) | mobile-app (er_mobile_tracker): the original apps\' clients, earthranger profile')
    .option('--profile <profile>', 'response profile of its tokens: fieldops | earthranger (default: FIELDOPS_API_PROFILE)')
    .option('--secret <secret>', 'makes the client confidential (>=16 characters); visible in ps: prefer --secret-stdin')
    .option('--secret-stdin', 'read the secret from standard input (makes the client confidential)')
    .option('--grant <grant>', 'password | refresh_token | authorization_code (repeatable)', collect, [])
    .option('--redirect-uri <uri>', 'registered redirect URI (repeatable)', collect, [])
    .option('--permission <codename>', 'permission of the client as an application (repeatable)', collect, [])
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
        const confidential = client.secretHash !== null;
        return {
          text: `created ${confidential ? 'confidential' : 'public'} client ${client.clientId} (grants: ${client.grantTypes.join(', ')}), profile: ${client.profile ?? 'default'}`,
          json: { client: { clientId: client.clientId, tenant: options.tenant, confidential, grants: client.grantTypes, redirectUris: client.redirectUris, profile: client.profile } },
        };
      }),
    );

  adminOptions(admin.command('set-client-profile').description('change the response profile of a client\'s tokens (CONTRACT §11)'))
    .requiredOption('--client-id <id>')
    .requiredOption('--profile <profile>', 'fieldops | earthranger | default')
    .action((options) =>
      withRuntime(options, async ({ admin }) => {
        const client = await admin.setClientProfile(options.clientId, options.profile);
        return { text: `client ${client.clientId} now answers in the ${client.profile ?? 'default'} profile`, json: { client: { clientId: client.clientId, profile: client.profile } } };
      }),
    );

  adminOptions(admin.command('conflict-policy').description('show or set what a same-field conflict of an offline update does in a tenant: hold (kept open for a person; the default), server-wins or last-writer-wins (settled, both values kept)'))
    .argument('<tenant>', 'tenant name')
    .argument('[policy]', 'hold | server-wins | last-writer-wins (left out: show the current one)')
    .action((tenant: string, policy: string | undefined, options) =>
      withRuntime(options, async ({ admin }) => {
        const set = policy === undefined ? await admin.conflictPolicy(tenant) : await admin.setConflictPolicy(tenant, policy);
        const shown = set.replace(/_/g, '-');
        return { text: policy === undefined ? `tenant ${tenant}: conflict policy ${shown}` : `tenant ${tenant} now settles conflicts with ${shown}`, json: { tenant, conflictPolicy: set } };
      }),
    );

  adminOptions(admin.command('set-map').description('set the map the web app opens on (served at /api/v1.0/maps)'))
    .requiredOption('--tenant <name>')
    .requiredOption('--name <name>', 'map name')
    .requiredOption('--center <longitude,latitude>', 'center in degrees, e.g. 36.8,-1.3')
    .requiredOption('--zoom <zoom>', 'zoom level, 0-22')
    .action((options) =>
      withRuntime(options, async ({ services }) => {
        const [longitude, latitude] = String(options.center).split(',').map(Number);
        const map = await services.startup.setMap(options.tenant, { name: options.name, center: [longitude ?? NaN, latitude ?? NaN], zoom: Number(options.zoom) });
        return { text: `map ${map.name} of ${options.tenant}: center ${map.center.join(',')}, zoom ${map.zoom}`, json: { tenant: options.tenant, map: { name: map.name, center: map.center, zoom: map.zoom } } };
      }),
    );

  adminOptions(admin.command('grant').description('give a user more permissions (what each codename allows: the README\'s "Permissions" table)'))
    .addHelpText('after', `\nCodenames:\n${wrap(PERMISSIONS.join(', '), 96, '  ')}\n`)
    .requiredOption('--username <username>')
    .requiredOption('--permission <codename...>', 'one or more permission codenames')
    .action((options) =>
      withRuntime(options, async ({ admin }) => {
        const user = await admin.grant(options.username, options.permission);
        return { text: `granted ${options.permission.join(', ')} to ${user.username}`, json: { username: user.username, granted: [...new Set<string>(options.permission)] } };
      }),
    );

  adminOptions(admin.command('set-password').description('set a user\'s password (e.g. a lost first-start admin password), end the user\'s sessions and clear its failed-login count'))
    .requiredOption('--username <username>')
    .option('--password-stdin', 'read the password from standard input (otherwise prompted for on a terminal)')
    .action((options) =>
      withRuntime(options, async ({ admin }) => {
        const password = (await readSecret({ fromStdin: options.passwordStdin, flag: '--password', promptAs: 'password' }, secretIo))!;
        const { user, failedLogins } = await admin.setPassword(options.username, password);
        return {
          text: `set the password of ${user.username}; its existing sessions are revoked and its failed-login count is cleared (${failedLogins === 0 ? 'it had none' : attempts(failedLogins)})`,
          json: { username: user.username, sessionsRevoked: true, failedLogins },
        };
      }),
    );

  adminOptions(admin.command('unlock').description('lift a login lockout (429 after failed attempts): clear the failures counted against a username, client address or client_id'))
    .option('--username <username>', 'a username, existing or not (repeatable)', collect, [])
    .option('--address <ip>', 'a client address, as the server sees it (repeatable)', collect, [])
    .option('--client-id <id>', 'a confidential client\'s id (repeatable)', collect, [])
    .addHelpText('after', '\nThe counts are shared by every server process: the lockout ends at once. Without unlock it ends after 15 minutes.')
    .action((options: { username: string[]; address: string[]; clientId: string[]; database?: string; dataDir?: string; create?: boolean; json?: boolean }) => {
      if (!options.username.length && !options.address.length && !options.clientId.length) {
        throw new UserFacingError('say what to unlock: --username, --address or --client-id', 'for example: fieldops admin unlock --username ranger (each option may be repeated)', EXIT.usage);
      }
      return withRuntime(options, async ({ admin }) => {
        const cleared = await admin.unlock({ usernames: options.username, addresses: options.address, clientIds: options.clientId });
        const lines = cleared.map((entry) => {
          const what = 'username' in entry ? `username ${entry.username}` : 'address' in entry ? `address ${entry.address}` : `client ${entry.clientId}`;
          return entry.failures === 0 ? `${what} had no failed attempts` : `cleared ${attempts(entry.failures)} of ${what}`;
        });
        return { text: lines.join('\n'), json: { cleared } };
      });
    });

  adminOptions(admin.command('add-profile').description('let a user act as another user of the same tenant (User-Profile header)'))
    .requiredOption('--username <username>')
    .requiredOption('--profile <username>')
    .action((options) =>
      withRuntime(options, async ({ admin }) => {
        await admin.addProfile(options.username, options.profile);
        return { text: `${options.username} may now act as ${options.profile}`, json: { username: options.username, profile: options.profile } };
      }),
    );

  registerMigrateFiles(admin, io, withRuntime);
  registerAdminFeatures(admin, io, withRuntime);
}
