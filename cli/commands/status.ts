import type { Command } from 'commander';
import type { Checkpoint } from '../../sync/mirror/store.js';
import { printJson } from '../context.js';
import { renderFeedStatus } from '../render/feed-status.js';
import type { CliIo } from '../main.js';
import { formatTable } from '../output/table.js';
import { ago } from '../output/time.js';
import { mirrorPath } from '../settings.js';
import { clientAction, withCommonOptions } from './common.js';

/** A mirror not confirmed by the server for this long is called stale. */
const STALE_MS = 24 * 3600 * 1000;

export function registerStatusCommand(program: Command, io: CliIo): void {
  withCommonOptions(program.command('status').description('server, user, and how fresh each mirrored resource is (offline)')).action(
    clientAction(io, async (ctx) => {
      const now = ctx.now();
      const saved = await ctx.credentials.profile(ctx.profile);
      const [{ openMirrorDatabase }, { KnexMirrorStore }, { feedStatus }] = await Promise.all([import('../../sync/mirror/open.js'), import('../../sync/mirror/knex-store.js'), import('../../sync/feed/status.js')]);
      const knex = await openMirrorDatabase(mirrorPath(ctx.settings, ctx.profile), { create: false });
      const store = knex ? new KnexMirrorStore(knex) : null;
      let meta = null;
      let checkpoints: Checkpoint[] = [];
      let feed = null;
      try {
        meta = (await store?.meta()) ?? null;
        checkpoints = (await store?.checkpoints()) ?? [];
        feed = knex ? await feedStatus(knex) : null;
      } finally {
        await store?.close();
      }
      const login = ctx.settings.token
        ? { via: 'FIELDOPS_TOKEN', username: null, expires_at: null }
        : saved
          ? { via: 'profile', username: saved.username, expires_at: new Date(saved.expiresAt).toISOString() }
          : null;
      const stale = (c: Checkpoint) => now - Date.parse(c.syncedAt) > STALE_MS;
      if (ctx.json) {
        printJson(ctx, {
          profile: ctx.profile,
          server: saved?.server ?? meta?.server ?? ctx.settings.server,
          login,
          mirror: { path: mirrorPath(ctx.settings, ctx.profile), exists: store !== null, server: meta?.server ?? null, username: meta?.username ?? null },
          resources: checkpoints.map((c) => ({
            resource: c.resource,
            status: c.status,
            items: c.itemCount,
            etag: c.etag,
            last_modified: c.lastModified,
            synced_at: c.syncedAt,
            changed_at: c.changedAt,
            stale: stale(c),
            age_seconds: Math.round((now - Date.parse(c.syncedAt)) / 1000),
          })),
          feed,
        });
        return;
      }
      const lines: string[] = [];
      lines.push(`profile  ${ctx.profile}`);
      lines.push(`server   ${saved?.server ?? meta?.server ?? ctx.settings.server ?? '(none: run `fieldops login --server <URL>`)'}`);
      if (login?.via === 'FIELDOPS_TOKEN') lines.push('user     (FIELDOPS_TOKEN)');
      else if (saved) lines.push(`user     ${saved.username} (session ${saved.expiresAt > now ? `valid for ${Math.round((saved.expiresAt - now) / 60000)} min, then refreshed` : 'token expired; refreshed on next use'})`);
      else lines.push('user     not logged in');
      lines.push(`mirror   ${mirrorPath(ctx.settings, ctx.profile)}${store ? '' : ' (none yet: run `fieldops sync`)'}`);
      if (meta && saved && meta.server !== saved.server) lines.push(ctx.out.yellow(`         holds data of ${meta.server}; the next sync replaces it`));
      ctx.print(lines.join('\n'));
      if (checkpoints.length) {
        const rows = checkpoints.map((c) => [
          c.resource,
          c.status === 'ok' ? 'ok' : ctx.out.yellow(c.status.replace('_', ' ')),
          String(c.itemCount),
          stale(c) ? ctx.out.yellow(`${ago(c.syncedAt, now)} (stale)`) : ago(c.syncedAt, now),
          ago(c.changedAt, now),
        ]);
        ctx.print('\n' + formatTable(['resource', 'status', 'items', 'last synced', 'last changed'], rows, { right: [2] }));
      }
      if (feed) ctx.print('\n' + renderFeedStatus(feed, now, ctx.out));
    }),
  );
}
