import { randomUUID } from 'node:crypto';
import { normaliseDocument } from '../../../schema/index.js';
import type { EventType } from '../model.js';
import type { Repositories } from '../ports.js';

export const CAMERA_TRAP_EVENT_TYPE = 'camera_trap_rep';
export const CAMERA_TRAP_PRIORITY = 300;

const text = (title: string, maxLength: number) => ({ type: 'string', title, maxLength });
const field = (name: string) => ({ name, type: 'field' });

/** The v2 schema of a camera-trap report's `event_details` (what the intake writes). */
export const CAMERA_TRAP_SCHEMA = {
  json: {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: {
      camera_name: text('Camera name', 100),
      camera_description: text('Camera description', 1000),
      camera_version: text('Camera version', 50),
      provider: text('Provider', 100),
    },
    required: [],
    additionalProperties: false,
  },
  ui: {
    fields: {
      camera_name: { type: 'TEXT', inputType: 'SHORT_TEXT', parent: 'camera' },
      camera_description: { type: 'TEXT', inputType: 'LONG_TEXT', parent: 'camera' },
      camera_version: { type: 'TEXT', inputType: 'SHORT_TEXT', parent: 'camera' },
      provider: { type: 'TEXT', inputType: 'SHORT_TEXT', parent: 'camera' },
    },
    sections: {
      camera: {
        label: 'Camera',
        columns: 1,
        isActive: true,
        leftColumn: [field('camera_name'), field('camera_description'), field('camera_version'), field('provider')],
        rightColumn: [],
      },
    },
    order: ['camera'],
    headers: {},
  },
};

/**
 * The tenant's `camera_trap_rep` event type, inserted on first use inside the caller's
 * transaction: under the `eventtypes` catalog lock (then looked up again, so concurrent first
 * reports insert it once), with a revision entry and a catalog version bump, as every catalog
 * write does. An existing type (even one an administrator changed) is used as it is.
 */
export async function ensureCameraTrapType(repos: Repositories, tenantId: string, now: number): Promise<EventType> {
  const existing = await repos.eventTypes.find(tenantId, CAMERA_TRAP_EVENT_TYPE);
  if (existing) return existing;
  await repos.catalog.lock(tenantId, 'eventtypes');
  const raced = await repos.eventTypes.find(tenantId, CAMERA_TRAP_EVENT_TYPE);
  if (raced) return raced;
  const type: EventType = {
    id: randomUUID(), tenantId, value: CAMERA_TRAP_EVENT_TYPE, display: 'Camera Trap', ordernum: null, icon: 'camera_trap_rep',
    defaultPriority: CAMERA_TRAP_PRIORITY, isActive: true, schema: JSON.stringify(normaliseDocument(CAMERA_TRAP_SCHEMA)),
    revision: 1, createdAt: now, updatedAt: now,
    category: '', defaultState: 'new', geometryType: 'Point', isCollection: false, readonly: true,
  };
  await repos.eventTypes.insert(type);
  await repos.catalog.appendRevision({
    id: randomUUID(), tenantId, catalog: 'eventtypes', itemId: type.id, action: 'created', time: now, userId: null, username: null,
    updatedFields: null,
    snapshot: { value: type.value, display: type.display, default_priority: type.defaultPriority, default_state: type.defaultState, readonly: type.readonly },
  });
  await repos.catalog.bump(tenantId, 'eventtypes', now);
  return type;
}
