import { randomUUID } from 'node:crypto';
import { type SensorSource, type Subject, SUBJECTS_CATALOG } from '../model.js';
import type { Repositories } from '../ports.js';
import { type ItemIssue, type ObservationInput, throwItemIssues } from './observation-input.js';

/**
 * Subject types follow from subtypes (EarthRanger's SubjectSubtype → SubjectType); a subtype we
 * do not know is wildlife, the common case for collars.
 */
export function subjectTypeFor(subtype: string): string {
  if (['ranger', 'person', 'staff', 'security', 'scout'].includes(subtype)) return 'person';
  if (['vehicle', 'car', 'truck', 'motorcycle', 'boat', 'aircraft', 'plane', 'helicopter'].includes(subtype)) return 'vehicle';
  if (subtype === 'unassigned') return 'unassigned';
  return 'wildlife';
}

/**
 * Decides the subject of every item, creating and changing subjects as the items ask, and
 * returns item index → subject id. Rules, in order:
 * - `subject_id`: must name a subject of the tenant (else 400 for that item);
 * - `subject_name`: the tenant's oldest subject of that name, created when there is none;
 * - neither: the subject the source tracks now; for a new source, the subject named after its
 *   manufacturer id (matched or created).
 * `subject_subtype` updates the subject (the batch's last such item wins); `subject_groups` adds
 * memberships (never removes). Any subject write takes the tenant's `subjects` catalog lock
 * first, then decides again under it (a concurrent batch may have created the same name), and
 * bumps the catalog version once, as SubjectService does.
 */
export async function resolveSubjects(
  repos: Repositories,
  tenantId: string,
  items: readonly ObservationInput[],
  sources: ReadonlyMap<string, SensorSource>,
  defaultSubtype: string,
  now: number,
): Promise<Map<number, string>> {
  const first = await plan(repos, tenantId, items, sources);
  if (!first.needsWrites) return first.subjectOf;
  await repos.catalog.lock(tenantId, SUBJECTS_CATALOG);
  const locked = await plan(repos, tenantId, items, sources);
  // A concurrent batch did it all while we waited for the lock: nothing changes, no bump.
  if (!locked.needsWrites) return locked.subjectOf;
  for (const name of locked.missingNames) {
    const subtype = locked.subtypeOfName.get(name) ?? defaultSubtype;
    const subject: Subject = {
      id: randomUUID(), tenantId, name, subjectType: subjectTypeFor(subtype), subjectSubtype: subtype,
      isActive: true, additional: {}, createdAt: now, updatedAt: now, revision: 1,
    };
    await repos.subjects.insertSubject(subject);
    locked.byName.set(name, subject);
  }
  const subjectOf = locked.assign();
  for (const [subjectId, subtype] of locked.subtypeChanges(subjectOf)) {
    await repos.sensorSubjects.updateKind(tenantId, subjectId, subjectTypeFor(subtype), subtype, now);
  }
  const current = await repos.sensorSubjects.groupNamesOf([...new Set(subjectOf.values())]);
  for (const [subjectId, groups] of locked.wantedGroups(subjectOf)) {
    for (const group of groups) {
      if (current.get(subjectId)?.includes(group)) continue;
      await repos.subjects.addToGroup(await repos.subjects.ensureGroup(tenantId, group, false, now), subjectId);
    }
  }
  await repos.catalog.bump(tenantId, SUBJECTS_CATALOG, now);
  return subjectOf;
}

/** The names a batch may look subjects up by (a superset of what plan() asks for, known before the sources are). */
export function candidateNames(items: readonly ObservationInput[]): string[] {
  return [...new Set(items.filter((item) => !item.subjectId).map((item) => item.subjectName ?? item.manufacturerId))];
}

/**
 * The subject of every item when deciding them writes nothing (reads only); null otherwise.
 * `named`: the tenant's subjects of `candidateNames(items)`, oldest first, read already.
 */
export async function knownSubjects(repos: Repositories, tenantId: string, items: readonly ObservationInput[], sources: ReadonlyMap<string, SensorSource>, named?: readonly Subject[]): Promise<Map<number, string> | null> {
  const planned = await plan(repos, tenantId, items, sources, named);
  return planned.needsWrites ? null : planned.subjectOf;
}

async function plan(repos: Repositories, tenantId: string, items: readonly ObservationInput[], sources: ReadonlyMap<string, SensorSource>, named?: readonly Subject[]) {
  const nameOf = (item: ObservationInput): string | null => {
    if (item.subjectId) return null;
    if (item.subjectName) return item.subjectName;
    return sources.get(item.manufacturerId)?.subjectId ? null : item.manufacturerId;
  };
  const sourceSubject = (item: ObservationInput) => sources.get(item.manufacturerId)?.subjectId ?? null;
  // Read: subjects named by id (they must exist), and the source's subject of an item that
  // asks for a subtype (to see whether it changes). An item that only follows its source needs
  // no read: the source's foreign key holds its subject, and the steady insert's stamp checks it.
  const ids = items.flatMap((item) => [item.subjectId ?? (item.subjectSubtype && nameOf(item) === null ? sourceSubject(item) : null)].filter((id): id is string => id !== null));
  const known = new Map((await repos.sensorSubjects.findByIds(tenantId, ids)).map((subject) => [subject.id, subject]));
  const issues: ItemIssue[] = items
    .filter((item) => item.subjectId && !known.has(item.subjectId))
    .map((item) => ({ index: item.index, code: 'unknown_subject', message: `Item ${item.index}: no subject ${item.subjectId}.`, hints: ['Send an existing subject id, or subject_name instead.'], pointer: `${item.pointer}/subject_id` }));
  throwItemIssues(issues, items.length);

  const names = [...new Set(items.map(nameOf).filter((name): name is string => name !== null))];
  const byName = new Map<string, Subject>();
  const wanted = new Set(names);
  const found = named ? named.filter((subject) => wanted.has(subject.name)) : await repos.sensorSubjects.findByNames(tenantId, names);
  for (const subject of found) if (!byName.has(subject.name)) byName.set(subject.name, subject);
  const missingNames = names.filter((name) => !byName.has(name));
  const subtypeOfName = new Map<string, string>();
  for (const item of items) if (item.subjectSubtype && nameOf(item) !== null) subtypeOfName.set(nameOf(item)!, item.subjectSubtype);

  const assign = () => {
    const subjectOf = new Map<number, string>();
    for (const item of items) {
      const name = nameOf(item);
      const id = item.subjectId ?? (name !== null ? byName.get(name)?.id : sourceSubject(item));
      if (id) subjectOf.set(item.index, id);
    }
    return subjectOf;
  };
  const subjectsById = () => new Map([...known.values(), ...byName.values()].map((subject) => [subject.id, subject]));
  const subtypeChanges = (subjectOf: Map<number, string>) => {
    const wanted = new Map<string, string>();
    for (const item of items) if (item.subjectSubtype && subjectOf.has(item.index)) wanted.set(subjectOf.get(item.index)!, item.subjectSubtype);
    const all = subjectsById();
    return [...wanted].filter(([id, subtype]) => all.get(id)?.subjectSubtype !== subtype);
  };
  const wantedGroups = (subjectOf: Map<number, string>) => {
    const wanted = new Map<string, Set<string>>();
    for (const item of items) {
      const id = subjectOf.get(item.index);
      if (id && item.subjectGroups.length) for (const group of item.subjectGroups) (wanted.get(id) ?? wanted.set(id, new Set()).get(id)!).add(group);
    }
    return wanted;
  };

  const subjectOf = assign();
  let needsWrites = missingNames.length > 0 || subtypeChanges(subjectOf).length > 0;
  const groupWishes = wantedGroups(subjectOf);
  if (!needsWrites && groupWishes.size > 0) {
    const current = await repos.sensorSubjects.groupNamesOf([...groupWishes.keys()]);
    needsWrites = [...groupWishes].some(([id, groups]) => [...groups].some((group) => !current.get(id)?.includes(group)));
  }
  return { needsWrites, subjectOf, missingNames, byName, subtypeOfName, assign, subtypeChanges, wantedGroups };
}
