import type { Services } from '../../app.js';
import { featureHandlers } from '../handlers/features.js';
import { featureSchemas } from '../schemas/features.js';
import { type Route } from './types.js';

const V1 = '/api/v1.0';

/**
 * Spatial feature sets (issue 27 §6). `featureset` and `featureset/<id>` are read by the web
 * app's map straight from the body (served raw in both profiles: presentation/rules-messages.ts);
 * `spatialfeaturegroup/<id>` by the Python client (wrapped in the earthranger profile).
 */
export function featureRoutes(services: Services): Route[] {
  const h = featureHandlers({ features: services.features });
  return [
    { name: 'features.sets', method: 'GET', paths: [`${V1}/featureset`], authenticate: true, schema: featureSchemas.sets!, handler: h.sets },
    { name: 'features.set', method: 'GET', paths: [`${V1}/featureset/:id`], authenticate: true, schema: featureSchemas.set!, handler: h.set },
    { name: 'feature.get', method: 'GET', paths: [`${V1}/feature/:id`], authenticate: true, schema: featureSchemas.feature!, handler: h.feature },
    { name: 'features.group', method: 'GET', paths: [`${V1}/spatialfeaturegroup/:id`], authenticate: true, schema: featureSchemas.group!, handler: h.group },
  ];
}
