import type { EventWrite } from '../events/model.js';
import { randomUUID } from 'node:crypto';
import { type Principal, actingUser } from '../context.js';
import { ConflictError, type FieldIssue, InputError, NotFoundError } from '../errors.js';
import { isUuid } from '../ids.js';
import type { ActivityEvent, EventFile } from '../model.js';
import type { Repositories } from '../ports.js';
import { parseIsoWithOffset } from '../time-input.js';
import { CONTROL } from './observation-input.js';
import { CAMERA_TRAP_EVENT_TYPE, ensureCameraTrapType } from './camera-trap-type.js';

export const IMAGE_FIELD = 'filecontent.file';
/** Largest camera-trap image accepted (413 beyond). */
export const CAMERA_TRAP_MAX_IMAGE_BYTES = 25 * 1024 * 1024;

/** A received file, not yet in the store (the file store's StagedFile satisfies this). */
export interface IncomingFile {
  readonly sha256: string;
  readonly size: number;
  readonly contentType: string;
  readonly tempPath: string;
  commit(): Promise<{ path: string }>;
}

/** A received image once in the store. */
export interface StoredImage {
  readonly sha256: string;
  readonly size: number;
  readonly contentType: string;
  readonly path: string;
}

/** The form of a camera-trap report, validated. */
export interface CameraTrapForm {
  cameraName: string | null;
  cameraDescription: string | null;
  cameraVersion: string | null;
  time: number | null;
  location: { latitude: number; longitude: number } | null;
  groupId: string | null;
}

const LIMITS = { camera_name: 100, camera_description: 1000, camera_version: 50 } as const;

/** Reads the form fields (the last value of each); every problem is reported at once. */
export function readCameraTrapForm(fields: Record<string, string[]>): CameraTrapForm {
  const errors: Record<string, FieldIssue[]> = {};
  const fail = (field: string, code: string, message: string, hints: string[] = []) => (errors[field] ??= []).push({ code, message, hints });
  const value = (field: string): string | null => {
    const raw = fields[field]?.at(-1);
    return raw === undefined || raw.trim() === '' ? null : raw;
  };
  const bounded = (field: keyof typeof LIMITS) => {
    const raw = value(field);
    if (raw !== null && raw.length > LIMITS[field]) fail(field, 'max_length', `${field} is longer than ${LIMITS[field]} characters.`);
    // Descriptions may hold line breaks; nothing may hold NUL (PostgreSQL text cannot).
    else if (raw !== null && (field === 'camera_description' ? raw.includes('\u0000') : CONTROL.test(raw))) fail(field, 'invalid', `${field} may not contain control characters.`);
    return raw;
  };
  const form: CameraTrapForm = {
    cameraName: bounded('camera_name'),
    cameraDescription: bounded('camera_description'),
    cameraVersion: bounded('camera_version'),
    time: null,
    location: null,
    groupId: value('group_id'),
  };
  const time = value('time');
  if (time !== null) {
    form.time = parseIsoWithOffset(time);
    if (form.time === null) fail('time', 'invalid_datetime', `"${time.slice(0, 60)}" is not an ISO 8601 date-time with an offset.`, ['Use a form like 2026-11-20T10:00:00.000+00:00.']);
  }
  const location = value('location');
  if (location !== null) {
    form.location = readLocation(location);
    if (!form.location) fail('location', 'invalid', 'location must be a JSON object {"latitude": -90..90, "longitude": -180..180}.', ['For example {"latitude": -1.29, "longitude": 36.82}.']);
  }
  if (Object.keys(errors).length > 0) throw new InputError('The camera-trap report is invalid.', errors);
  return form;
}

function readLocation(text: string): { latitude: number; longitude: number } | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  const { latitude, longitude } = (parsed ?? {}) as Record<string, unknown>;
  const ok = (v: unknown, bound: number): v is number => typeof v === 'number' && Number.isFinite(v) && Math.abs(v) <= bound;
  return ok(latitude, 90) && ok(longitude, 180) ? { latitude, longitude } : null;
}

/**
 * Stores one camera-trap image, in the caller's transaction: a new `camera_trap_rep` event
 * (the type's default priority and state; the type is created on first use), or, with
 * `group_id`, the existing report it names (404 when the tenant has no such report). The same
 * bytes already reported by the tenant are a 409. The image is in the store already (moved there
 * before the transaction began), so a committed report never points at a missing file.
 */
export async function fileCameraTrapReport(
  repos: Repositories,
  principal: Principal,
  report: { providerId: string; providerKey: string; form: CameraTrapForm; time: number; image: StoredImage; filename: string },
  now: number,
): Promise<{ eventId: string; appended: boolean }> {
  const { tenantId } = principal;
  const { form, image } = report;
  let event: ActivityEvent | null = null;
  if (form.groupId !== null) {
    event = isUuid(form.groupId) ? await repos.events.find(tenantId, form.groupId.toLowerCase()) : null;
    if (!event || event.eventType !== CAMERA_TRAP_EVENT_TYPE) throw new NotFoundError(`No camera-trap report ${form.groupId}.`);
  }
  const appended = event !== null;
  if (!event) {
    const type = await ensureCameraTrapType(repos, tenantId, now);
    const details: Record<string, unknown> = { provider: report.providerKey };
    if (form.cameraName !== null) details.camera_name = form.cameraName;
    if (form.cameraDescription !== null) details.camera_description = form.cameraDescription;
    if (form.cameraVersion !== null) details.camera_version = form.cameraVersion;
    const created: EventWrite = {
      id: randomUUID(), tenantId, eventType: CAMERA_TRAP_EVENT_TYPE,
      title: form.cameraName ? `Camera trap: ${form.cameraName}`.slice(0, 255) : 'Camera trap report',
      time: report.time, latitude: form.location?.latitude ?? null, longitude: form.location?.longitude ?? null,
      priority: type.defaultPriority, state: type.defaultState, eventDetails: details,
      createdByUserId: actingUser(principal)?.id ?? null, createdByClientId: principal.kind === 'application' ? principal.client.id : null,
      createdAt: now, updatedAt: now,
      // issue 28: the revision of the built-in type the report is recorded against
      schemaRevision: (await repos.catalog.latestSequence(tenantId, 'eventtypes', type.id)) || null,
    };
    await repos.events.insert(created);
    event = created;
  }
  if (!(await repos.sensors.claimCameraImage(tenantId, image.sha256, event.id, report.providerId, now))) {
    throw new ConflictError('This image has already been received.');
  }
  const file: EventFile = {
    id: randomUUID(), tenantId, eventId: event.id, sha256: image.sha256, path: image.path, size: image.size,
    contentType: image.contentType, filename: report.filename.replace(/[\u0000-\u001f\u007f]/g, '').slice(0, 255), createdAt: now,
  };
  await repos.events.attachFile(file);
  if (appended) await repos.events.touch(tenantId, event.id, now);
  // Last, so the tenant's counter row is locked (PostgreSQL) only until the commit, not while the image is stored.
  else await repos.events.assignSerialNumber(tenantId, event.id);
  return { eventId: event.id, appended };
}
