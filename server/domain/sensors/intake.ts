import { timeOrderedUuid } from '../ids.js';
import type { Observation, SensorProvider, SensorSource } from '../model.js';
import type { NewSourceSpec, Repositories, SteadyIntakeRead, SteadyIntakeStamp, SubjectStatusUpdate } from '../ports.js';
import type { SteadyTargets } from './steady-targets.js';
import type { ObservationInput } from './observation-input.js';
import { candidateNames, knownSubjects, resolveSubjects } from './subjects.js';

/** How a provider type fills what an item leaves out. */
export interface IntakeDefaults {
  providerType: string;
  sourceType: string;
  subjectSubtype: string;
}

export interface IntakeResult {
  received: number;
  created: number;
  duplicates: number;
}

/** A batch's provider and sources, found or created (one statement in a steady stream). */
export interface IntakeTarget {
  provider: SensorProvider;
  sources: Map<string, SensorSource>;
}

export async function intakeTarget(
  repos: Repositories,
  tenantId: string,
  providerKey: string,
  items: readonly ObservationInput[],
  defaults: IntakeDefaults,
  now: number,
): Promise<IntakeTarget> {
  const specs = new Map<string, NewSourceSpec>();
  for (const item of items) {
    if (!specs.has(item.manufacturerId)) specs.set(item.manufacturerId, { manufacturerId: item.manufacturerId, sourceType: item.sourceType ?? defaults.sourceType, modelName: item.modelName ?? '' });
  }
  return repos.sensors.ensureProviderWithSources(tenantId, providerKey, defaults.providerType, [...specs.values()], now);
}

/** The keys of `additional` that make up a subject's radio state (the radio agent's fields). */
const RADIO_KEYS = ['radio_state', 'radio_state_at', 'last_voice_call_start_at', 'location_requested_at'] as const;

export function radioStateOf(additional: Record<string, unknown>): Record<string, unknown> | null {
  if (!('radio_state' in additional)) return null;
  return Object.fromEntries(RADIO_KEYS.filter((key) => key in additional).map((key) => [key, additional[key]]));
}

/**
 * Stores validated observations of one provider, inside the caller's transaction: sources
 * created on first sight, subjects resolved (see subjects.ts), observations inserted with
 * duplicates of (source, recorded_at) skipped (earlier batches, this batch, concurrent
 * batches), sources pointed at their newest subject, and subject status moved forward.
 */
export async function storeObservations(
  repos: Repositories,
  target: IntakeTarget,
  items: readonly ObservationInput[],
  defaults: IntakeDefaults,
  now: number,
): Promise<IntakeResult> {
  const { provider, sources } = target;
  const subjectOf = await resolveSubjects(repos, provider.tenantId, items, sources, defaults.subjectSubtype, now);
  const { observations, statuses, reassigned } = observationsOf(target, items, subjectOf, now);
  // In id order, like every multi-row write here: concurrent batches lock rows in one order.
  // Each new link is also an open assignment from the source's first fix for that subject here.
  for (const [sourceId, subjectId] of reassigned) {
    await repos.sensors.assignSubject(sourceId, subjectId, now);
    const first = Math.min(...observations.filter((o) => o.sourceId === sourceId && o.subjectId === subjectId).map((o) => o.recordedAt));
    await repos.subjectSources.openAssignment(provider.tenantId, sourceId, subjectId, Number.isFinite(first) ? first : now, now);
  }
  const created = await repos.observations.insertBatch(observations, statuses);
  return { received: items.length, created, duplicates: items.length - created };
}

/**
 * A steady stream, outside any transaction: when the provider, every source and every subject
 * exist and the batch changes none of them, the batch is decided on what they were when read
 * and written by one atomic insertSteadyBatch, which stores it only if that still holds (its
 * stamp): one statement on PostgreSQL, no BEGIN/COMMIT round trips, nothing locked across round
 * trips. What was read is remembered in `targets` (per process), so a steady stream usually
 * needs no read at all; a stamp that no longer holds forgets it and reads afresh.
 * null when the batch must create or change something, or what it was decided on changed
 * under it: the caller runs storeObservations in a transaction instead.
 */
export async function storeSteadyBatch(
  repos: Repositories,
  tenantId: string,
  providerKey: string,
  items: readonly ObservationInput[],
  now: number,
  targets: SteadyTargets,
  report: (outcome: SteadyOutcome) => void = () => undefined,
): Promise<IntakeResult | null> {
  const manufacturerIds = [...new Set(items.map((item) => item.manufacturerId))];
  const names = candidateNames(items);
  const remembered = targets.find(tenantId, providerKey, manufacturerIds, names);
  // Nothing remembered is handled as what was remembered having changed: read afresh.
  let result = remembered ? await storeOnRead(repos, tenantId, items, remembered, now) : CHANGED;
  let storedOn: SteadyOutcome = 'remembered';
  if (result === CHANGED) {
    if (remembered) report('stale');
    const read = await repos.sensors.findSteadyIntake(tenantId, providerKey, manufacturerIds, names);
    if (read) targets.remember(tenantId, providerKey, read, names);
    result = read ? await storeOnRead(repos, tenantId, items, read, now) : null;
    storedOn = 'read';
    if (result === CHANGED) report('stale');
  }
  if (result === null || result === CHANGED) {
    // Not steady: the transaction that follows will change what was read, so forget it.
    targets.forget(tenantId, providerKey);
    report('transaction');
    return null;
  }
  report(storedOn);
  return result;
}

/**
 * How a batch was stored (`remembered`: on what the process remembered; `read`: after a read;
 * `transaction`: not steady), and `stale`: an insert whose stamp no longer held.
 */
export type SteadyOutcome = 'remembered' | 'read' | 'transaction' | 'stale';

const CHANGED = Symbol('changed since read');

/** The batch decided on `read` and inserted under its stamp; null when it is not steady. */
async function storeOnRead(repos: Repositories, tenantId: string, items: readonly ObservationInput[], read: SteadyIntakeRead, now: number): Promise<IntakeResult | null | typeof CHANGED> {
  const subjectOf = await knownSubjects(repos, tenantId, items, read.sources, read.named);
  if (!subjectOf) return null;
  const { observations, statuses, reassigned } = observationsOf(read, items, subjectOf, now);
  if (reassigned.length > 0) return null;
  const sources = [...read.sources.values()].map((source) => ({ id: source.id, subjectId: source.subjectId }));
  const stamp: SteadyIntakeStamp = { tenantId, subjectsVersion: read.subjectsVersion, sources };
  const created = await repos.observations.insertSteadyBatch(observations, statuses, stamp);
  if (created === null) return CHANGED;
  return { received: items.length, created, duplicates: items.length - created };
}

/** The rows of a batch, its subject status updates, and the sources whose subject changes (in id order). */
function observationsOf(target: IntakeTarget, items: readonly ObservationInput[], subjectOf: ReadonlyMap<number, string>, now: number) {
  const { provider, sources } = target;
  const observations: Observation[] = items.map((item) => ({
    id: timeOrderedUuid(now),
    tenantId: provider.tenantId,
    sourceId: sources.get(item.manufacturerId)!.id,
    subjectId: subjectOf.get(item.index) ?? null,
    recordedAt: item.recordedAt,
    latitude: item.latitude,
    longitude: item.longitude,
    additional: item.additional,
    createdAt: now,
  }));
  // Each source now tracks the subject of its newest item in this batch.
  const newestOfSource = new Map<string, Observation>();
  for (const o of observations) if ((newestOfSource.get(o.sourceId)?.recordedAt ?? -Infinity) < o.recordedAt) newestOfSource.set(o.sourceId, o);
  const reassigned: Array<[string, string]> = [];
  for (const source of [...sources.values()].sort((a, b) => (a.id < b.id ? -1 : 1))) {
    const subjectId = newestOfSource.get(source.id)?.subjectId;
    if (subjectId && subjectId !== source.subjectId) reassigned.push([source.id, subjectId]);
  }
  return { observations, statuses: statusUpdates(observations, now), reassigned };
}

/** Per subject: the newest position of the batch, and the newest radio state carried by any item. */
export function statusUpdates(observations: readonly Observation[], now: number): SubjectStatusUpdate[] {
  const updates = new Map<string, SubjectStatusUpdate>();
  for (const o of observations) {
    if (!o.subjectId) continue;
    const radio = radioStateOf(o.additional);
    const current = updates.get(o.subjectId);
    if (!current) {
      updates.set(o.subjectId, {
        subjectId: o.subjectId, tenantId: o.tenantId, sourceId: o.sourceId, recordedAt: o.recordedAt, latitude: o.latitude, longitude: o.longitude,
        radioRecordedAt: radio ? o.recordedAt : null, radioState: radio, at: now,
      });
      continue;
    }
    if (o.recordedAt > current.recordedAt) Object.assign(current, { sourceId: o.sourceId, recordedAt: o.recordedAt, latitude: o.latitude, longitude: o.longitude });
    if (radio && (current.radioRecordedAt === null || o.recordedAt > current.radioRecordedAt)) Object.assign(current, { radioRecordedAt: o.recordedAt, radioState: radio });
  }
  return [...updates.values()];
}
