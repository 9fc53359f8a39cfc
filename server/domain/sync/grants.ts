/**
 * Which scope keys a caller may read on the feed: exactly what the REST reads of the same
 * records require, so the feed never shows more than the API would.
 *
 * - `ev:*`: `view_event` (GET …/activity/events and …/event/<id>).
 * - `pa:*`: `view_patrol` (GET …/activity/patrols).
 * - `su:nogroup`: `view_subject` (GET …/subjects).
 * - `su:group:<g>`: `view_subject`, and the group visible to the caller as the subject-group
 *   reads decide it (`user_subject_groups` of the acting user; every group for a superuser or an
 *   application: StartupService.subjectGroups, SubjectService.patrolLeaders).
 * - `cat:patrol_types`: `view_patroltype` or `view_patrol` (the patrol type list);
 *   `cat:event_types` and `cat:event_categories`: `view_eventtype`; `cat:choices`: `view_choice`
 *   (GET /api/v2.0/choices).
 * Patterns: `su:*` is `su:nogroup` and every visible group's key; `cat:*` the catalog keys.
 */
import { CATALOG_KEYS, isKeyPattern, isScopeKey, keys as scopeKeys } from '../../../protocol/scope-keys.js';
import { type DeniedScope, MAX_SCOPE_KEYS } from '../../../protocol/sync.js';
import { type Principal, hasPermission } from '../context.js';
import { InputError, NotAllowedError } from '../errors.js';
import type { Permission } from '../permissions.js';

export interface Grants {
  /** The requested keys (patterns expanded) the caller may read, sorted, each once. */
  granted: string[];
  denied: DeniedScope[];
}

/** The permissions that let a caller read at least one kind of fed record. */
const FEED_PERMISSIONS: readonly Permission[] = ['view_event', 'view_patrol', 'view_subject', 'view_patroltype', 'view_eventtype', 'view_choice'];

/** A caller who may read no fed record at all is refused (403), as every REST read would refuse it. */
export function requireFeedReader(principal: Principal): void {
  if (!FEED_PERMISSIONS.some((permission) => hasPermission(principal, permission))) {
    throw new NotAllowedError('You do not have permission to read any record of the sync feed.');
  }
}

/** Rejects (400) anything that is neither a scope key nor a pattern: the request is malformed. */
export function checkRequestedKeys(requested: readonly string[]): void {
  const bad = requested.filter((key) => !isScopeKey(key) && !isKeyPattern(key));
  if (bad.length > 0) {
    const shown = bad.slice(0, 5).map((key) => JSON.stringify(key.slice(0, 40))).join(', ');
    throw InputError.field('scopes', 'invalid_scope_key', `Not a scope key: ${shown}${bad.length > 5 ? ` and ${bad.length - 5} more` : ''}.`, ['Scope keys are described in docs/sync.md (for example ev:all, pa:open, su:*, cat:*).']);
  }
}

/**
 * Rejects (400) a `previous_scopes` that is not a list of concrete keys (the `granted` of a page:
 * never a pattern), at most MAX_SCOPE_KEYS of them.
 */
export function checkPreviousKeys(previous: readonly unknown[]): void {
  if (!Array.isArray(previous) || previous.length > MAX_SCOPE_KEYS || !previous.every((key) => typeof key === 'string' && isScopeKey(key))) {
    throw InputError.field('previous_scopes', 'invalid_scope_key', `previous_scopes is the \`granted\` list of the page the cursor came from: at most ${MAX_SCOPE_KEYS} scope keys.`, ['Send the granted keys stored with the cursor, or leave previous_scopes out.']);
  }
}

/** Whether the caller needs the visible subject groups to decide `keys` (a read can be saved). */
export function needsGroups(requested: readonly string[]): boolean {
  return requested.some((key) => key === 'su:*' || key.startsWith('su:group:'));
}

/** Why one concrete key is refused, or null when it is granted. `groups`: visible group ids. */
export function refusal(principal: Principal, key: string, groups: ReadonlySet<string>): string | null {
  const need = (...anyOf: Permission[]) => (anyOf.some((permission) => hasPermission(principal, permission)) ? null : `needs ${anyOf.join(' or ')}`);
  if (key.startsWith('ev:')) return need('view_event');
  if (key.startsWith('pa:')) return need('view_patrol');
  if (key === 'su:nogroup') return need('view_subject');
  if (key.startsWith('su:group:')) return need('view_subject') ?? (groups.has(key) ? null : 'the subject group is not visible to you');
  switch (key) {
    case 'cat:patrol_types':
      return need('view_patroltype', 'view_patrol');
    case 'cat:event_types':
    case 'cat:event_categories':
      return need('view_eventtype');
    case 'cat:choices':
      return need('view_choice');
  }
  return 'not a key served to laptops';
}

/** The subject groups as their keys, for `refusal` and `su:*`. */
export function groupKeys(groupIds: readonly string[]): Set<string> {
  return new Set(groupIds.map((id) => scopeKeys.subjectGroup(id)));
}

/** Requested ∩ granted, with a reason for every refused key. Keys must have passed checkRequestedKeys. */
export function grantScopes(principal: Principal, requested: readonly string[], groupIds: readonly string[]): Grants {
  const groups = groupKeys(groupIds);
  const granted = new Set<string>();
  const denied = new Map<string, string>();
  const consider = (key: string, fromPattern: boolean) => {
    const reason = refusal(principal, key, groups);
    if (reason === null) granted.add(key);
    else if (!fromPattern) denied.set(key, reason);
  };
  for (const key of new Set(requested)) {
    if (key === 'su:*') {
      const reason = refusal(principal, 'su:nogroup', groups);
      if (reason !== null) denied.set(key, reason);
      else for (const groupKey of ['su:nogroup', ...groups]) consider(groupKey, true);
    } else if (key === 'cat:*') {
      const catalogs = CATALOG_KEYS.filter((catalogKey) => refusal(principal, catalogKey, groups) === null);
      if (catalogs.length === 0) denied.set(key, 'needs the view permission of a catalog');
      for (const catalogKey of catalogs) granted.add(catalogKey);
    } else {
      consider(key, false);
    }
  }
  for (const key of granted) denied.delete(key);
  return { granted: [...granted].sort(), denied: [...denied].map(([key, reason]) => ({ key, reason })) };
}
