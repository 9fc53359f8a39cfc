import type { Command } from 'commander';
import { baseTransport, printJson } from '../context.js';
import { UserFacingError } from '../errors.js';
import type { CliIo } from '../main.js';
import { prompt, readAllStdin, stdinIsTty } from '../prompt.js';
import { isLoopback, normaliseServerUrl } from '../server-url.js';
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

      const stack = await baseTransport(ctx);
      const { login } = await import('../../sync/auth/login.js');
      try {
        const { profile, me } = await login({ file: ctx.credentials, profile: ctx.profile, server, username, password, transport: stack.transport, now: ctx.now });
        if (ctx.json) {
          printJson(ctx, { profile: ctx.profile, server, username: me.username, name: me.name, expires_at: new Date(profile.expiresAt).toISOString(), credentials: ctx.credentials.path });
        } else {
          ctx.print(`Logged in to ${server} as ${me.username}${me.name ? ` (${me.name})` : ''}, profile "${ctx.profile}".`);
        }
      } finally {
        await stack.close();
      }
    }),
  );
}
