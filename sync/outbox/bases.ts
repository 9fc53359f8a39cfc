/**
 * What an offline update is based on (issue 26 §2), decided when it is recorded:
 *
 * 1. the latest earlier entry of the same record that is not dropped (`baseEntry`): successive
 *    offline edits chain, an edit of a record created offline follows its create, and the push
 *    sends `{entry}` while that entry is unsent (the server resolves it from the entry's answer);
 *    an entry already answered with a revision gives that revision instead, or the pulled one when
 *    the laptop has pulled a newer revision since;
 * 2. else the pulled record's `revision` (`baseRevision`);
 * 3. else, for a record pulled from a server that serves no revisions (an older one), the ETag it
 *    was pulled with (`baseEtag`, sent as If-Match by the one-by-one push).
 *
 * An update with none of these is refused here (the server would have to apply it blindly, the
 * lost update of issue 26): the user pulls first.
 */
import { failure } from '../errors.js';
import { readMirrorIdentity } from '../mirror/identity.js';
import type { OutboxEntry, OutboxKind } from './model.js';
import type { OutboxStore } from './store.js';

/** The entry kinds that write each record family (their `target` is the record's id). */
export const RECORD_KINDS = {
  event: ['event.create', 'event.update'],
  patrol: ['patrol.create', 'patrol.update', 'segment.update'],
} as const satisfies Record<string, readonly OutboxKind[]>;

export type RecordFamily = keyof typeof RECORD_KINDS;

export interface PulledBase {
  revision: number | null;
  etag: string | null;
}

export interface RecordedBase {
  baseEntry: string | null;
  baseRevision: number | null;
  baseEtag: string | null;
  /** The entry that must reach the server first (a create made offline and not yet sent). */
  dependsOn: string | null;
  /** Said to the user: what the change follows. */
  basedOn: 'queued entry' | 'queued create' | 'pulled revision' | 'pulled version';
}

const isCreate = (entry: OutboxEntry) => entry.kind.endsWith('.create');

/**
 * Whether an entry's answer leaves the laptop knowing the record at the entry's revision: sent,
 * with a revision, and no conflict it has not settled itself (a conflict open, or settled by the
 * server's policy, means the server kept values the laptop never saw: a following edit is then
 * based on the entry, `{entry}`, so the server knows which fields it lost).
 */
export function answeredWithRevision(entry: OutboxEntry): boolean {
  if (entry.status !== 'sent' || typeof entry.revision !== 'number') return false;
  return !(entry.outcome?.conflicts ?? []).some((c) => c.status !== 'settled' || !c.settled_by || c.settled_by === 'policy');
}

/**
 * The base of an update of `target` recorded now. `pulled`: the pulled row's revision and ETag
 * (null when the laptop never pulled the record). Throws a usage failure (pull first) when no
 * base is known.
 */
export async function recordBase(outbox: OutboxStore, family: RecordFamily, target: string, pulled: PulledBase | null): Promise<RecordedBase> {
  const me = (await readMirrorIdentity(outbox.knex)).user?.userId ?? null;
  const latest = await outbox.latestFor(target, RECORD_KINDS[family], undefined, me);
  const pulledRevision = pulled?.revision ?? null;
  if (latest) {
    if (answeredWithRevision(latest)) {
      const revision = Math.max(latest.revision!, pulledRevision ?? 0);
      return { baseEntry: null, baseRevision: revision, baseEtag: null, dependsOn: null, basedOn: revision === pulledRevision ? 'pulled revision' : 'queued entry' };
    }
    // A create not yet on the server (or whose answer is not known) is also a dependency.
    const dependsOn = isCreate(latest) && latest.status !== 'sent' ? latest.id : latest.dependsOn && latest.status !== 'sent' ? latest.dependsOn : null;
    return { baseEntry: latest.id, baseRevision: pulledRevision, baseEtag: pulled?.etag ?? null, dependsOn, basedOn: isCreate(latest) ? 'queued create' : 'queued entry' };
  }
  if (pulledRevision !== null) return { baseEntry: null, baseRevision: pulledRevision, baseEtag: null, dependsOn: null, basedOn: 'pulled revision' };
  if (pulled?.etag) return { baseEntry: null, baseRevision: null, baseEtag: pulled.etag, dependsOn: null, basedOn: 'pulled version' };
  throw failure(
    'usage',
    `the laptop does not know which version of ${family} ${target} it would change`,
    'run `fieldops pull` (or `fieldops sync`) first, so the change is based on the server\'s version and cannot overwrite a change made there',
  );
}

/** The pulled row's base columns (`revision` from the record or the row; null when absent). */
export function pulledBase(row: { revision?: number | string | null; etag?: string | null; record?: string | Record<string, unknown> } | undefined | null): PulledBase | null {
  if (!row) return null;
  let revision = row.revision === undefined || row.revision === null ? null : Number(row.revision);
  if (revision === null && row.record) {
    const record = typeof row.record === 'string' ? (JSON.parse(row.record) as Record<string, unknown>) : row.record;
    if (typeof record.revision === 'number') revision = record.revision;
  }
  return { revision: Number.isFinite(revision) ? revision : null, etag: row.etag ?? null };
}
