import type { Command } from 'commander';
import { connect, printJson } from '../context.js';
import type { CliIo } from '../main.js';
import { clientAction, withCommonOptions } from './common.js';

export function registerWhoamiCommand(program: Command, io: CliIo): void {
  withCommonOptions(program.command('whoami').description('show the user the server knows you as (refreshes the session when needed)')).action(
    clientAction(io, async (ctx) => {
      const connection = await connect(ctx);
      const { fetchMe } = await import('../../sync/auth/login.js');
      try {
        const me = await fetchMe(connection.transport, connection.session.server);
        const via = connection.session.source === 'token' ? 'FIELDOPS_TOKEN' : `profile "${ctx.profile}"`;
        if (ctx.json) printJson(ctx, { ...me, server: connection.session.server, profile: connection.session.profile, via: connection.session.source, client_id: ctx.device.clientId });
        else ctx.print(`${me.username}${me.name ? ` (${me.name}${me.email ? `, ${me.email}` : ''})` : ''} on ${connection.session.server} via ${via}`);
      } finally {
        await connection.close();
      }
    }),
  );
}
