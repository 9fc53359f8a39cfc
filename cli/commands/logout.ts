import type { Command } from 'commander';
import { ClientFailure } from '../../sync/errors.js';
import { TransportError } from '../../sync/http.js';
import { baseTransport, printJson } from '../context.js';
import { UserFacingError } from '../errors.js';
import type { CliIo } from '../main.js';
import { clientAction, withCommonOptions } from './common.js';

export function registerLogoutCommand(program: Command, io: CliIo): void {
  withCommonOptions(
    program
      .command('logout')
      .description('revoke the profile\'s tokens at the server and forget them here (the mirror is kept)')
      .option('--local', 'forget the tokens without telling the server (they stay valid until they expire)'),
  ).action(
    clientAction<{ profile?: string; json?: boolean; local?: boolean }>(io, async (ctx, options) => {
      const stack = await baseTransport(ctx);
      const { logout } = await import('../../sync/auth/login.js');
      try {
        const result = await logout({ file: ctx.credentials, profile: ctx.profile, transport: stack.transport, local: Boolean(options.local) });
        if (ctx.json) printJson(ctx, { profile: ctx.profile, logged_out: result !== null, revoked: result?.revoked ?? false, server: result?.server ?? null });
        else if (!result) ctx.print(`Profile "${ctx.profile}" is not logged in.`);
        else ctx.print(`Logged out of ${result.server} (profile "${ctx.profile}")${result.revoked ? '; the tokens are revoked' : '; the tokens were not revoked at the server'}.`);
      } catch (error) {
        if (error instanceof TransportError || (error instanceof ClientFailure && error.kind === 'server')) {
          throw new UserFacingError(
            `could not revoke the tokens: ${error.message}; still logged in`,
            'try again when the server is reachable, or `fieldops logout --local` to forget them here only',
          );
        }
        throw error;
      } finally {
        await stack.close();
      }
    }),
  );
}
