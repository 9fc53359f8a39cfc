/**
 * The server connection and the mirror of one profile, opened only when a command first needs
 * them (an offline diff never connects), and closed once at the end.
 */
import { connect, openMirror, type CommandContext, type Connection } from '../context.js';
import type { MirrorStore } from '../../sync/mirror/store.js';
import type { ChoiceLookup } from '../../schema/diff/index.js';
import { SchemaApi } from './api.js';

export class LazySession {
  private connection: Promise<Connection> | null = null;
  private store: Promise<MirrorStore> | null = null;
  private optionalStore: Promise<MirrorStore | null> | null = null;

  constructor(readonly ctx: CommandContext) {}

  api = async (): Promise<SchemaApi> => {
    this.connection ??= connect(this.ctx);
    const connection = await this.connection;
    return new SchemaApi(connection.transport, connection.session.server);
  };

  mirror = async (): Promise<MirrorStore> => {
    this.store ??= openMirror(this.ctx, { create: false });
    return this.store;
  };

  /** The mirror's choice lists, to resolve `choices.json` references (undefined: no mirror, or never synced). */
  async choiceLookup(): Promise<ChoiceLookup | undefined> {
    this.optionalStore ??= this.store ?? openMirror(this.ctx, { create: false, optional: true });
    const store = await this.optionalStore.catch(() => null);
    if (!store) return undefined;
    const [{ mirrorChoiceLists }, { choiceLookupFrom }] = await Promise.all([import('../lint/run-lint.js'), import('../../schema/diff/index.js')]);
    const lists = await mirrorChoiceLists(store);
    return lists ? choiceLookupFrom(lists.active) : undefined;
  }

  async close(): Promise<void> {
    const stores = new Set([await this.store?.catch(() => null), await this.optionalStore?.catch(() => null)]);
    for (const store of stores) await store?.close();
    await (await this.connection?.catch(() => null))?.close();
  }
}
