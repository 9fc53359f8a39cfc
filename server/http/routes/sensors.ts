import type { Services } from '../../app.js';
import { sensorHandlers } from '../handlers/sensors.js';
import { type Route, json, rootAndV1 } from './types.js';
import { readSchemas, sensorSchemas } from '../schemas/sensors.js';
import { unrenderable } from './keyed-unrenderable.js';

/**
 * Sensor intake (CONTRACT §10), at the root and under /api/v1.0, and observations (read, and
 * the original's `POST observations`). Subjects are routes/subjects.ts's. The named
 * types come before the generic `/sensors/:type/...` so that they win. `POST observations` honours
 * `Idempotency-Key` (the subject side's writes, issue 27); the sensor posts do not (the intake
 * treats a repeat of a source's `recorded_at` as a duplicate).
 */
export function sensorRoutes(services: Services): Route[] {
  const sensors = sensorHandlers({ sensors: services.sensors, files: services.files, uploadSlots: services.uploadSlots, maxFieldBytes: services.bodyLimits.formBytes, trustProxy: services.trustProxy });
  const status = (type: string) => rootAndV1(`/sensors/${type}/:provider_key/status`);
  return [
    { name: 'sensors.gpsradio', method: 'POST', paths: status('gps-radio'), authenticate: true, body: json, schema: sensorSchemas.status, handler: sensors.status },
    { name: 'sensors.radioagent', method: 'POST', paths: [...status('radioagent'), ...status('dasradioagent')], authenticate: true, body: json, schema: sensorSchemas.radioAgent, handler: sensors.radioAgent },
    { name: 'sensors.cameratrap', method: 'POST', paths: status('camera-trap'), authenticate: true, schema: sensorSchemas.cameraTrap, handler: sensors.cameraTrap },
    { name: 'sensors.generic', method: 'POST', paths: status(':type'), authenticate: true, body: json, schema: sensorSchemas.generic, handler: sensors.status },
    { name: 'observations.list', method: 'GET', paths: ['/api/v1.0/observations'], authenticate: true, schema: readSchemas.observations, handler: sensors.observations },
    { name: 'observations.create', method: 'POST', paths: ['/api/v1.0/observations'], authenticate: true, body: json, schema: readSchemas.create, handler: sensors.createObservations, idempotent: unrenderable('observation') },
  ];
}
