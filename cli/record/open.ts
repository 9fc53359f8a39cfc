/** The mirror and its outbox, opened together (one SQLite file, one connection). */
import type { MirrorStore } from '../../sync/mirror/store.js';
import type { OutboxStore } from '../../sync/outbox/store.js';
import { UserFacingError } from '../errors.js';
import { mirrorPath } from '../settings.js';
import type { CommandContext } from '../context.js';

export interface OfflineStores {
  mirror: MirrorStore;
  outbox: OutboxStore;
  file: string;
  close(): Promise<void>;
}

export async function openOffline(ctx: CommandContext): Promise<OfflineStores> {
  const file = mirrorPath(ctx.settings, ctx.profile);
  const [{ openMirrorDatabase }, { KnexMirrorStore }, { OutboxStore }] = await Promise.all([
    import('../../sync/mirror/open.js'),
    import('../../sync/mirror/knex-store.js'),
    import('../../sync/outbox/store.js'),
  ]);
  const knex = await openMirrorDatabase(file, { create: false });
  if (!knex) {
    throw new UserFacingError(`no mirror yet for profile "${ctx.profile}" (${file})`, `run \`fieldops sync${ctx.profile === 'default' ? '' : ` --profile ${ctx.profile}`}\` once while online: records are validated against the mirrored catalogs`);
  }
  return { mirror: new KnexMirrorStore(knex), outbox: new OutboxStore(knex, ctx.now), file, close: () => knex.destroy() };
}
