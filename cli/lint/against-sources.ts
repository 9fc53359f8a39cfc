/**
 * The two sources of `fieldops lint --against`: `mirror` (the profile's mirror: the mirrored
 * type and the usage summaries `fieldops sync` kept; no network) and a profile name (that
 * profile's server, online; the summaries fetched are kept in that profile's mirror, when it has
 * one, for a later offline lint).
 */
import type { UsageSummary } from '../../schema/compat/types.js';
import { choiceLookupFrom } from '../../schema/diff/index.js';
import type { MirrorStore } from '../../sync/mirror/store.js';
import { connect, openMirror, type CommandContext } from '../context.js';
import { UserFacingError } from '../errors.js';
import type { AgainstSource } from './against.js';
import { mirrorChoiceLists } from './run-lint.js';

export interface OpenSource {
  source: AgainstSource;
  close(): Promise<void>;
}

export async function openAgainstSource(ctx: CommandContext, against: string): Promise<OpenSource> {
  return against === 'mirror' ? mirrorSource(ctx) : profileSource(ctx, against);
}

async function choicesOf(store: MirrorStore | null) {
  const lists = store ? await mirrorChoiceLists(store) : undefined;
  return lists ? choiceLookupFrom(lists.active) : undefined;
}

async function mirrorSource(ctx: CommandContext): Promise<OpenSource> {
  const store = await openMirror(ctx, { create: false });
  try {
    const meta = await store.meta();
    if (!meta) throw new UserFacingError(`the mirror of profile "${ctx.profile}" was never synced`, 'run `fieldops sync` once while online');
    const types = await store.items('event_types');
    const source: AgainstSource = {
      label: `the mirror of profile "${ctx.profile}" (${meta.server})`,
      mode: 'mirror',
      currentType: async ({ value, id }) => {
        const item = (id ? types.find((t) => t.id === id) : undefined) ?? types.find((t) => t.value === value);
        return item ? { value: item.value, schema: item.record.schema ?? null } : null;
      },
      usage: async (values) => ({ offered: true, summaries: new Map((await store.usageSummaries(values)).map((k) => [k.eventType, k.summary])) }),
      choices: await choicesOf(store),
    };
    return { source, close: () => store.close() };
  } catch (error) {
    await store.close();
    throw error;
  }
}

async function profileSource(parent: CommandContext, profile: string): Promise<OpenSource> {
  const { profileName } = await import('../settings.js');
  const ctx: CommandContext = { ...parent, profile: profileName(parent.settings, profile) };
  if (!ctx.settings.token && !(await ctx.credentials.profile(ctx.profile))) {
    const known = Object.keys((await ctx.credentials.read()).profiles);
    throw new UserFacingError(
      `--against ${profile}: no profile "${profile}" (known: ${known.length ? known.join(', ') : 'none'})`,
      `log in with \`fieldops login --profile ${profile} --server <url>\`, or lint offline with \`--against mirror\``,
      2,
    );
  }
  const connection = await connect(ctx);
  const { fetchEventType, fetchUsageSummaries } = await import('../../sync/usage/remote.js');
  let store: MirrorStore | null = null;
  try {
    store = await openMirror(ctx, { create: false, optional: true });
    const { server } = connection.session;
    const kept = store;
    const source: AgainstSource = {
      label: `profile "${ctx.profile}" (${server})`,
      mode: 'online',
      currentType: async ({ value, id }) => {
        const found = (id ? await fetchEventType(connection.transport, server, id) : null) ?? (await fetchEventType(connection.transport, server, value));
        return found ? { value: found.value, schema: found.schema } : null;
      },
      usage: async (values) => {
        const answer = await fetchUsageSummaries(connection.transport, server, values);
        if (!answer.offered) return { offered: false, summaries: new Map<string, UsageSummary>() };
        if (kept) {
          const at = new Date(ctx.now()).toISOString();
          // Kept for `--against mirror`; the sync's own refresh clock is not moved by a partial fetch.
          await kept.keepUsageSummaries({ summaries: answer.summaries, fetchedAt: at, etag: answer.etag, checkedAt: (await kept.usageCheckedAt()) ?? new Date(0).toISOString() });
        }
        return { offered: true, summaries: new Map(answer.summaries.map((s) => [s.event_type, s])) };
      },
      choices: await choicesOf(store),
    };
    return {
      source,
      close: async () => {
        await kept?.close();
        await connection.close();
      },
    };
  } catch (error) {
    await store?.close();
    await connection.close();
    throw error;
  }
}
