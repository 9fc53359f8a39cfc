import type { FeatureSet, SpatialFeature } from '../../domain/features/ports.js';
import { type FeatureService, parseBBox } from '../../domain/features/service.js';
import { queryString } from '../query.js';
import { requestContext, type AppContext } from '../state.js';

/**
 * A feature as the web app's map reads it: the imported properties (simplestyle `stroke`,
 * `fill`... pass through), with `pk` (its id: the app copies it to `id`), `title` and `type_name`
 * (the layer list groups features by it).
 */
export function presentFeature(feature: SpatialFeature, set: FeatureSet): Record<string, unknown> {
  const properties = feature.properties;
  const text = (value: unknown) => (typeof value === 'string' && value ? value : undefined);
  return {
    type: 'Feature',
    id: feature.id,
    geometry: feature.geometry,
    bbox: feature.bbox,
    properties: { ...properties, pk: feature.id, title: text(properties.title) ?? feature.name, type_name: text(properties.type_name) ?? set.featureType ?? set.name, featureset_id: set.id },
  };
}

const param = (ctx: AppContext) => String((ctx.params as Record<string, string>).id ?? '');

/** `featureset`, `featureset/<id>`, `feature/<id>`, `spatialfeaturegroup/<id>` (issue 27 §6). */
export function featureHandlers(deps: { features: FeatureService }) {
  return {
    async sets(ctx: AppContext) {
      const sets = await deps.features.listSets(requestContext(ctx));
      ctx.body = { features: sets.map((set) => ({ id: set.id, name: set.name, feature_count: set.featureCount })) };
    },
    async set(ctx: AppContext) {
      const { set, features } = await deps.features.getSet(requestContext(ctx), param(ctx), parseBBox(queryString(ctx, 'bbox')));
      ctx.body = { type: 'FeatureCollection', id: set.id, name: set.name, features: features.map((feature) => presentFeature(feature, set)) };
    },
    async feature(ctx: AppContext) {
      const { feature, set } = await deps.features.getFeature(requestContext(ctx), param(ctx));
      ctx.body = presentFeature(feature, set);
    },
    async group(ctx: AppContext) {
      const { set, features } = await deps.features.getSet(requestContext(ctx), param(ctx), parseBBox(queryString(ctx, 'bbox')));
      ctx.body = { id: set.id, name: set.name, description: '', features: features.map((feature) => presentFeature(feature, set)) };
    },
  };
}
