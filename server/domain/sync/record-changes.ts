/**
 * The unit of work's pre-commit hook (server/db/store.ts StoreHooks.beforeCommit): turns the
 * records a transaction marked into change-log entries, in that same transaction, so the log
 * commits with the writes or not at all.
 */
import { RECORD_KINDS, type RecordKind } from '../../../protocol/sync.js';
import type { Repositories } from '../ports.js';
import type { ChangeSet, DependentKind, LogEntry, RecordFacts } from './ports.js';
import { categoryKeyOf, scopeKeysOf } from './scopes.js';

/**
 * Kinds in the order they are logged: a kind's changes can move the keys of kinds after it
 * (an event type's category its events', a subject's groups the teams of the patrols it leads,
 * a patrol's leaders the teams of its linked events), which are then logged too.
 */
const SOURCES_FIRST: readonly RecordKind[] = ['event_type', 'subject', 'patrol', 'event'];
const ORDER: readonly RecordKind[] = [...SOURCES_FIRST, ...RECORD_KINDS.filter((kind) => !SOURCES_FIRST.includes(kind))];

/** The family of keys of a kind that other records derive from it. */
const DERIVED: Record<DependentKind, (key: string) => boolean> = {
  subject: (key) => key.startsWith('su:'),
  patrol: (key) => key.startsWith('pa:team:'),
  event_type: () => false,
};
const TARGET: Record<DependentKind, RecordKind> = { subject: 'patrol', patrol: 'event', event_type: 'event' };

/**
 * Per tenant (in a fixed order), per kind: loads the marked records' facts, and appends a put
 * with their scope keys, or a delete for a record that no longer exists. One append per tenant,
 * so the scope sums' row locks of one transaction are taken in one sorted statement.
 */
export async function recordChanges(repos: Repositories, changes: ChangeSet, now: number): Promise<void> {
  const byTenant = new Map<string, Map<RecordKind, Set<string>>>();
  for (const { tenantId, kind, id } of changes.marked()) {
    const kinds = byTenant.get(tenantId) ?? new Map<RecordKind, Set<string>>();
    byTenant.set(tenantId, kinds);
    kinds.set(kind, (kinds.get(kind) ?? new Set()).add(id));
  }
  for (const tenantId of [...byTenant.keys()].sort()) {
    const kinds = byTenant.get(tenantId)!;
    const entries: LogEntry[] = [];
    for (const kind of ORDER) {
      const ids = [...(kinds.get(kind) ?? [])];
      if (ids.length === 0) continue;
      const facts = await repos.sync.facts(tenantId, kind, ids);
      const logged = ids.map((id): LogEntry => {
        const found = facts.get(id);
        return found ? { kind, id, op: 'put', scopes: scopeKeysOf(found) } : { kind, id, op: 'delete', scopes: [] };
      });
      entries.push(...logged);
      if (kind === 'subject' || kind === 'patrol' || kind === 'event_type') {
        const moved = await movedSources(repos, tenantId, kind, logged, facts);
        if (moved.length === 0) continue;
        const targets = kinds.get(TARGET[kind]) ?? new Set<string>();
        for (const id of await repos.sync.dependents(tenantId, kind, moved, categoryKeyOf)) targets.add(id);
        kinds.set(TARGET[kind], targets);
      }
    }
    await repos.sync.append(tenantId, entries, now);
  }
}

/**
 * The records of `kind` whose derived keys moved with this change (all event types: their
 * dependents query finds only the events whose category key is stale). Subjects and patrols
 * compare the keys they were in with their new ones, so an ordinary write fans out to nothing.
 */
async function movedSources(repos: Repositories, tenantId: string, kind: DependentKind, logged: readonly LogEntry[], facts: Map<string, RecordFacts>): Promise<string[]> {
  if (kind === 'event_type') return logged.filter((entry) => facts.has(entry.id)).map((entry) => entry.id);
  const derived = DERIVED[kind];
  const before = await repos.sync.memberKeys(tenantId, kind, logged.map((entry) => entry.id));
  return logged
    .filter((entry) => {
      const old = (before.get(entry.id) ?? []).filter(derived).join(' ');
      const now = entry.scopes.filter(derived).join(' ');
      // A record never logged (the backfill's first pass) moved nothing another record holds.
      return before.has(entry.id) && old !== now;
    })
    .map((entry) => entry.id);
}
