import type { Command } from 'commander';
import fs from 'node:fs';
import type { Knex } from 'knex';
import { baseTransport, bindMirror, printJson, type CommandContext } from '../context.js';
import { UserFacingError } from '../errors.js';
import type { CliIo } from '../main.js';
import { prompt, readAllStdin, stdinIsTty } from '../prompt.js';
import { isLoopback, normaliseServerUrl } from '../server-url.js';
import { mirrorPath } from '../settings.js';
import { clientAction, withCommonOptions } from './common.js';

interface LoginOptions {
  profile?: string;
  json?: boolean;
  server?: string;
  username?: string;
  passwordStdin?: boolean;
}

export function registerLoginCommand(program: Command, io: CliIo): void {
  withCommonOptions(
    program
      .command('login')
      .description('log in to a server (OAuth 2 password grant); tokens are saved per profile, the password never')
      .argument('[server]', 'server URL, as --server')
      .option('--server <url>', 'server URL (env FIELDOPS_SERVER; default: the profile\'s server)')
      .option('--username <name>', 'username (prompted for on a terminal)')
      .option('--password-stdin', 'read the password from standard input instead of prompting'),
  ).action(
    clientAction<LoginOptions>(io, async (ctx, options, [positional]) => {
      if (positional && options.server && positional !== options.server) throw new UserFacingError(`two servers given: ${positional} and --server ${options.server}`, 'give one', 2);
      const saved = await ctx.credentials.profile(ctx.profile);
      const rawServer = positional ?? options.server ?? ctx.settings.server ?? saved?.server;
      if (!rawServer) throw new UserFacingError('no server to log in to', 'pass --server https://<host> (or `fieldops login https://<host>`, or set FIELDOPS_SERVER)', 2);
      const server = normaliseServerUrl(rawServer);
      if (server.startsWith('http:') && !isLoopback(server)) ctx.warn(`${server} is plain http: the password and tokens travel unencrypted`);

      const tty = stdinIsTty();
      let username = options.username ?? (saved?.server === server ? saved.username : undefined);
      if (!username && tty && !options.passwordStdin) username = (await prompt('Username: ', { secret: false, stderr: io.stderr })).trim();
      if (!username) throw new UserFacingError('no username given', 'pass --username <name>', 2);

      let password: string;
      if (options.passwordStdin) password = await readAllStdin();
      else if (tty) password = await prompt(`Password for ${username} at ${server}: `, { secret: true, stderr: io.stderr });
      else throw new UserFacingError('cannot prompt for the password: standard input is not a terminal', 'pipe the password in with --password-stdin', 2);
      if (!password) throw new UserFacingError('empty password', options.passwordStdin ? 'standard input was empty' : undefined, 2);

      // The mirror, if there is one: its client id goes with the login's requests, and it is
      // then given to this user (another user's pulled records deleted; see bindMirror).
      const mirror = await openExistingMirror(ctx);
      const stack = await baseTransport(ctx);
      const { login } = await import('../../sync/auth/login.js');
      try {
        const { profile, me } = await login({ file: ctx.credentials, profile: ctx.profile, server, username, password, transport: stack.transport, now: ctx.now });
        ctx.device.user = { server, userId: profile.userId ?? null, username: me.username };
        const held = mirror ? await adoptMirror(ctx, mirror) : null;
        if (ctx.json) {
          printJson(ctx, {
            profile: ctx.profile, server, username: me.username, user_id: profile.userId ?? null, name: me.name, expires_at: new Date(profile.expiresAt).toISOString(), credentials: ctx.credentials.path,
            client_id: ctx.device.clientId, held_for_others: held,
          });
        } else {
          ctx.print(`Logged in to ${server} as ${me.username}${me.name ? ` (${me.name})` : ''}, profile "${ctx.profile}".`);
          if (held) ctx.info(`${held} record${held === 1 ? ' was' : 's were'} recorded offline by other users on this laptop: they stay queued for them (\`fieldops outbox\` lists them)`);
        }
      } finally {
        await stack.close();
        await mirror?.destroy();
      }
    }),
  );
}

/** The profile's mirror when it exists and opens; a mirror that cannot be opened does not stop a login (the commands that use it say why). */
async function openExistingMirror(ctx: CommandContext): Promise<Knex | null> {
  const file = mirrorPath(ctx.settings, ctx.profile);
  if (!fs.existsSync(file)) return null;
  const [{ openMirrorDatabase }, { readMirrorIdentity }] = await Promise.all([import('../../sync/mirror/open.js'), import('../../sync/mirror/identity.js')]);
  try {
    const knex = await openMirrorDatabase(file, { create: false });
    if (knex) ctx.device.clientId = (await readMirrorIdentity(knex)).clientId;
    return knex;
  } catch (error) {
    ctx.warn(`the mirror ${file} could not be opened (${(error as Error).message}); it was not given to this user`);
    return null;
  }
}

/** Gives the mirror to the logged-in user; returns how many pending entries are held for others. */
async function adoptMirror(ctx: CommandContext, knex: Knex): Promise<number> {
  await bindMirror(ctx, knex);
  const [{ OutboxStore }, { heldForOthers }] = await Promise.all([import('../../sync/outbox/store.js'), import('../../sync/outbox/owner.js')]);
  return (await heldForOthers(new OutboxStore(knex, ctx.now), ctx.device.user!)).length;
}
