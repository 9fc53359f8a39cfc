import fs from 'node:fs';
import type { Command } from 'commander';
import type { Knex } from 'knex';
import { ClientFailure } from '../../sync/errors.js';
import { TransportError } from '../../sync/http.js';
import type { UserIdentity } from '../../sync/mirror/identity.js';
import type { OutboxEntry } from '../../sync/outbox/model.js';
import { baseTransport, printJson, type CommandContext } from '../context.js';
import { UserFacingError } from '../errors.js';
import type { CliIo } from '../main.js';
import { mirrorPath } from '../settings.js';
import { clientAction, withCommonOptions } from './common.js';

interface LogoutOptions {
  profile?: string;
  json?: boolean;
  local?: boolean;
  keep?: boolean;
  discard?: boolean;
  wipe?: boolean;
}

/** What `--wipe` deletes beside the mirror file: SQLite's journals, attached files, the push lock. */
const MIRROR_SIBLINGS = ['-wal', '-shm', '-journal', '.files', '.push.lock'];

export function registerLogoutCommand(program: Command, io: CliIo): void {
  withCommonOptions(
    program
      .command('logout')
      .description('revoke the profile\'s tokens at the server and forget them here (the mirror is kept unless --wipe)')
      .option('--local', 'forget the tokens without telling the server (they stay valid until they expire)')
      .option('--keep', 'log out although records you made offline are not sent: they stay queued for your next login')
      .option('--discard', 'drop the records you made offline that are not sent (the reason is recorded); with --wipe, anyone\'s')
      .option('--wipe', 'also delete the mirror (pulled records, outbox, attached files): for leaving a shared laptop')
      .addHelpText(
        'after',
        '\nOn a shared laptop the outbox holds each record for the user who made it. Logging out with\n' +
          'unsent records of yours is refused until you choose: `fieldops push` them, keep them for your\n' +
          'next login (--keep), or drop them (--discard). --wipe deletes the mirror file with its journals\n' +
          'and attached files; with unsent records of anyone it needs --discard too.\n' +
          'Exit codes: 0 logged out, 1 the server could not be told, 2 unsent records (nothing was changed).',
      ),
  ).action(
    clientAction<LogoutOptions>(io, async (ctx, options) => {
      if (options.keep && options.discard) throw new UserFacingError('--keep and --discard say opposite things', 'pass one of them', 2);
      if (options.keep && options.wipe) throw new UserFacingError('--wipe deletes what --keep would keep', 'pass --wipe --discard to delete the unsent records with the mirror, or --keep alone', 2);
      const stored = await ctx.credentials.profile(ctx.profile);
      const file = mirrorPath(ctx.settings, ctx.profile);
      const mirror = await openMirrorIfAny(ctx, file, options);
      let closed = false;
      const closeMirror = async () => {
        if (!closed) await mirror?.destroy();
        closed = true;
      };
      try {
        const me: UserIdentity | null = stored ? { server: stored.server, userId: stored.userId ?? null, username: stored.username } : null;
        const unsent = mirror ? await unsentEntries(mirror, me) : { mine: [], all: [] };
        refuseUnsent(ctx, options, unsent, me);

        const stack = await baseTransport(ctx);
        const { logout } = await import('../../sync/auth/login.js');
        let result: Awaited<ReturnType<typeof logout>>;
        try {
          result = await logout({ file: ctx.credentials, profile: ctx.profile, transport: stack.transport, local: Boolean(options.local) });
        } catch (error) {
          if (error instanceof TransportError || (error instanceof ClientFailure && error.kind === 'server')) {
            throw new UserFacingError(
              `could not revoke the tokens: ${error.message}; still logged in (nothing was changed)`,
              'try again when the server is reachable, or `fieldops logout --local` to forget them here only',
            );
          }
          throw error;
        } finally {
          await stack.close();
        }

        let discarded = 0;
        if (mirror && !options.wipe) {
          discarded = await afterLogout(ctx, mirror, options.discard ? unsent.mine : [], me);
        }
        let wiped = false;
        if (options.wipe && fs.existsSync(file)) {
          await closeMirror();
          wipeMirror(file);
          wiped = true;
          discarded = unsent.all.length;
        }
        const kept = options.discard || options.wipe ? 0 : unsent.mine.length;
        if (ctx.json) {
          printJson(ctx, {
            profile: ctx.profile, logged_out: result !== null, revoked: result?.revoked ?? false, server: result?.server ?? null,
            kept, discarded, held_for_others: wiped ? 0 : unsent.all.length - unsent.mine.length, wiped, mirror: file,
          });
          return;
        }
        if (!result) ctx.print(`Profile "${ctx.profile}" is not logged in.`);
        else ctx.print(`Logged out of ${result.server} (profile "${ctx.profile}")${result.revoked ? '; the tokens are revoked' : '; the tokens were not revoked at the server'}.`);
        if (kept) ctx.print(`${records(kept)} you made offline stay queued for your next login.`);
        if (discarded && !wiped) ctx.print(`${records(discarded)} you made offline dropped (\`fieldops outbox --all\` lists them).`);
        if (wiped) ctx.print(`Deleted the mirror ${file}${discarded ? ` with ${records(discarded).toLowerCase()} never sent` : ''}.`);
      } finally {
        await closeMirror();
      }
    }),
  );
}

const records = (n: number) => `${n} record${n === 1 ? '' : 's'}`;

/**
 * The mirror, to look for unsent records. One that cannot be opened does not keep anyone logged
 * in (it is said); --wipe of it needs --discard, as its records cannot be counted.
 */
async function openMirrorIfAny(ctx: CommandContext, file: string, options: LogoutOptions): Promise<Knex | null> {
  if (!fs.existsSync(file)) return null;
  const [{ openMirrorDatabase }, { readMirrorIdentity }] = await Promise.all([import('../../sync/mirror/open.js'), import('../../sync/mirror/identity.js')]);
  let knex: Knex | null = null;
  try {
    knex = await openMirrorDatabase(file, { create: false });
    // The revocation requests carry the mirror's client id, as every request does.
    if (knex) ctx.device.clientId = (await readMirrorIdentity(knex)).clientId;
    return knex;
  } catch (error) {
    await knex?.destroy();
    const problem = error instanceof ClientFailure ? error.message : String(error);
    if (options.wipe && !options.discard) {
      throw new UserFacingError(`cannot read the mirror to count its unsent records: ${problem}`, '`fieldops outbox export` may still save them; pass --wipe --discard to delete it anyway', 2, { cause: error });
    }
    if (!options.wipe) ctx.warn(`cannot read the mirror to look for unsent records (${problem}); \`fieldops outbox export\` may still save them`);
    return null;
  }
}

/** Unsent entries: `mine` pending ones of the user logging out (and of nobody known); `all`, anyone's not sent (for --wipe). */
async function unsentEntries(knex: Knex, me: UserIdentity | null): Promise<{ mine: OutboxEntry[]; all: OutboxEntry[] }> {
  const [{ OutboxStore }, { recordedBy }] = await Promise.all([import('../../sync/outbox/store.js'), import('../../sync/outbox/owner.js')]);
  const all = await new OutboxStore(knex).list({ status: ['pending', 'rejected', 'conflict'] });
  const mine = me ? all.filter((e) => e.status === 'pending' && recordedBy(e, me)) : [];
  return { mine, all };
}

/** Nothing is changed (tokens included) while records would be lost or left without a decision. */
function refuseUnsent(ctx: CommandContext, options: LogoutOptions, unsent: { mine: OutboxEntry[]; all: OutboxEntry[] }, me: UserIdentity | null): void {
  const profile = ctx.profile === 'default' ? '' : ` --profile ${ctx.profile}`;
  if (options.wipe && unsent.all.length > 0 && !options.discard) {
    const users = [...new Set(unsent.all.map((e) => e.username ?? 'an unknown user'))].join(', ');
    throw new UserFacingError(
      `the mirror holds ${records(unsent.all.length).toLowerCase()} not sent (recorded by ${users}); --wipe would delete them`,
      `send them first (\`fieldops push\`, as each user), save them (\`fieldops outbox export\`), or pass --discard too to delete them with the mirror (\`fieldops logout${profile} --wipe --discard\`)`,
      2,
    );
  }
  if (!options.wipe && unsent.mine.length > 0 && !options.keep && !options.discard) {
    throw new UserFacingError(
      `${records(unsent.mine.length)} you made offline ${unsent.mine.length === 1 ? 'is' : 'are'} not sent${me?.username ? ` (recorded by ${me.username})` : ''}; still logged in`,
      `send them first (\`fieldops push\`), or \`fieldops logout${profile} --keep\` (they stay queued for your next login), or \`fieldops logout${profile} --discard\` (they are dropped, the reason recorded)`,
      2,
    );
  }
}

/** The mirror records nothing until the next login; `discard`ed entries are dropped with the reason. */
async function afterLogout(ctx: CommandContext, knex: Knex, discard: OutboxEntry[], me: UserIdentity | null): Promise<number> {
  const [{ OutboxStore }, { markSignedOut }] = await Promise.all([import('../../sync/outbox/store.js'), import('../../sync/mirror/identity.js')]);
  if (discard.length > 0) {
    const reason = `discarded at the logout of ${me?.username ?? 'its user'} (${new Date(ctx.now()).toISOString()})`;
    await new OutboxStore(knex, ctx.now).settle(discard.map((e) => ({ id: e.id, status: 'dropped' as const, reason })));
  }
  await markSignedOut(knex);
  return discard.length;
}

/** The mirror file and what SQLite and fieldops keep beside it. */
function wipeMirror(file: string): void {
  for (const name of [file, ...MIRROR_SIBLINGS.map((suffix) => file + suffix)]) {
    try {
      fs.rmSync(name, { recursive: true, force: true });
    } catch (error) {
      throw new UserFacingError(`logged out, but could not delete ${name}: ${(error as Error).message}`, 'delete it by hand', 1, { cause: error });
    }
  }
}
