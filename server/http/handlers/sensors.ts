import type { Observation } from '../../domain/model.js';
import type { SubjectWithStatus } from '../../domain/ports.js';
import { CAMERA_TRAP_MAX_IMAGE_BYTES, IMAGE_FIELD, type SensorService } from '../../domain/sensors/service.js';
import { toIso } from '../../db/time.js';
import type { FileStore } from '../../storage/file-store.js';
import type { UploadSlots } from '../upload-slots.js';
import { withUpload } from '../middleware/upload.js';
import { pageBody, readPage } from '../pagination.js';
import { presentSubjectView } from './subjects.js';
import { queryString } from '../query.js';
import { requestContext, type AppContext } from '../state.js';

/** Sensor responses use the users API's envelope (CONTRACT §10): `{data, status: {code, message}}`. */
function envelope(ctx: AppContext, status: number, data: unknown): void {
  ctx.status = status;
  ctx.body = { data, status: { code: status, message: status === 201 ? 'Created' : 'OK' } };
}

export function presentObservation(o: Observation) {
  return {
    id: o.id,
    source: o.sourceId,
    subject: o.subjectId,
    recorded_at: toIso(o.recordedAt),
    created_at: toIso(o.createdAt),
    location: { latitude: o.latitude, longitude: o.longitude },
    observation_details: o.additional,
  };
}

/** A subject with its latest position (the sync feed's subject record; see presentSubjectView). */
export function presentSubjectWithStatus(view: SubjectWithStatus, origin = '') {
  return presentSubjectView(view, origin);
}

export interface SensorHandlerDeps {
  sensors: SensorService;
  files: FileStore;
  uploadSlots: UploadSlots;
  maxFieldBytes: number;
  trustProxy: boolean;
}

export function sensorHandlers({ sensors, files, uploadSlots, maxFieldBytes, trustProxy }: SensorHandlerDeps) {
  const key = (ctx: AppContext) => String(ctx.params.provider_key);
  return {
    /** gps-radio, and the generic `<type>` (the type is the route's `:type`, else gps-radio). */
    async status(ctx: AppContext) {
      const type = ctx.params.type ? String(ctx.params.type) : 'gps-radio';
      const result = await sensors.recordStatus(requestContext(ctx), type, key(ctx), ctx.state.body);
      envelope(ctx, result.created > 0 ? 201 : 200, result);
    },
    async radioAgent(ctx: AppContext) {
      const outcome = await sensors.recordRadioAgent(requestContext(ctx), key(ctx), ctx.state.body);
      if (outcome.kind === 'heartbeat') envelope(ctx, 200, outcome.echo);
      else envelope(ctx, outcome.result.created > 0 ? 201 : 200, outcome.result);
    },
    async cameraTrap(ctx: AppContext) {
      // Refused before receiving the image, not after.
      const options = { fileField: IMAGE_FIELD, maxFileBytes: CAMERA_TRAP_MAX_IMAGE_BYTES, maxFieldBytes, slots: uploadSlots, authorize: () => sensors.authorizeIntake(requestContext(ctx)) };
      const { eventId } = await withUpload(ctx, files, options, (upload) =>
        sensors.reportCameraTrap(requestContext(ctx), key(ctx), upload.fields, upload.file?.staged ?? null, upload.file?.filename ?? ''),
      );
      envelope(ctx, 201, { group_id: eventId });
    },
    async observations(ctx: AppContext) {
      const page = readPage(ctx);
      const query = Object.fromEntries(['source_id', 'subject_id', 'since', 'until', 'ordering'].map((name) => [name, queryString(ctx, name)]));
      const { total, items } = await sensors.listObservations(requestContext(ctx), query, page);
      envelope(ctx, 200, pageBody(ctx, page, total, items.map(presentObservation), trustProxy));
    },
    /** `POST observations`: the stored observation (one object sent) or list; 201 when any was new. */
    async createObservations(ctx: AppContext) {
      const { created, single, observations } = await sensors.postObservations(requestContext(ctx), ctx.state.body);
      const shown = observations.map(presentObservation);
      envelope(ctx, created > 0 ? 201 : 200, single ? shown[0] : shown);
    },
  };
}
