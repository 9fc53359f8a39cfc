import type { EarthRangerRule } from './rules.js';

/**
 * The subject side's earthranger-profile rules (merged into rules.ts's table, after its own:
 * these win). Every route here answers `{data, status}` in every profile (CONTRACT §10); the
 * earthranger profile drops our `revision` from subjects, as rules.ts does for records.
 */

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** A subject without its top-level `revision` (one inside `additional` is the tenant's data). */
function bareSubject(subject: unknown): unknown {
  if (!isRecord(subject) || !Object.hasOwn(subject, 'revision')) return subject;
  const { revision: _revision, ...rest } = subject;
  return rest;
}

/** A list, a page `{count, next, previous, results}`, or one subject. */
function bareSubjects(payload: unknown): unknown {
  if (Array.isArray(payload)) return payload.map(bareSubject);
  if (isRecord(payload) && Array.isArray(payload.results)) return { ...payload, results: payload.results.map(bareSubject) };
  return bareSubject(payload);
}

const SUBJECTS: EarthRangerRule = { kind: 'enveloped', data: bareSubjects };
const ENVELOPED: EarthRangerRule = { kind: 'enveloped' };

export const AREA_RULES: Record<string, EarthRangerRule> = {
  'subjects.list': SUBJECTS,
  'subjects.get': SUBJECTS,
  'subjects.create': SUBJECTS,
  'subjects.patch': SUBJECTS,
  'subjects.members.add': { kind: 'enveloped', data: (payload) => (isRecord(payload) ? { ...payload, subjects: bareSubjects(payload.subjects) } : payload) },
  'sources.subjects': SUBJECTS,
  ...Object.fromEntries(
    ['sources.list', 'sources.create', 'sources.get', 'sources.patch', 'sourceproviders.list', 'sourceproviders.create', 'sourceproviders.patch', 'subjectsources.list', 'subjectsources.create', 'subjectsources.patch']
      .map((name) => [name, ENVELOPED]),
  ),
  // Deletes answer 204; the earthranger profile's 200 with `data: null` (CONTRACT §11), as the other deletes.
  'subjects.delete': { kind: 'wrap' },
  'subjects.members.remove': { kind: 'wrap' },
  // The original answers the generic sensor POST with an empty object under `data`.
  'sensors.generic': { kind: 'enveloped', data: () => ({}) },
};
