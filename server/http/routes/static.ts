import type { Services } from '../../app.js';
import { iconHandler } from '../handlers/icons.js';
import { errorBody, notModified } from '../schemas/common.js';
import type { Route, RouteSchema } from './types.js';

const icon: RouteSchema = {
  summary: 'A catalog icon (the `image_url` of patrol and event types)',
  description: 'The site\'s own icons (`<data dir>/icons/<name>.svg`) first, then the built-in set; an SVG name in neither is answered with the generic icon (no broken image on the map). Strong `ETag`; cached for an hour.',
  tags: ['operations'],
  params: { file: { description: 'The icon\'s file name, `<icon>.svg`.', schema: { type: 'string' } } },
  responses: {
    200: { description: 'The SVG image.', mediaType: 'image/svg+xml' },
    304: notModified,
    404: { description: 'No such icon (a name that is not an SVG file name).', json: errorBody },
  },
  security: 'public',
};

/** Static files: the catalog icons. */
export function staticRoutes(services: Services): Route[] {
  return [{ name: 'static.icon', method: 'GET', paths: ['/static/sprite-src/:file'], authenticate: false, schema: icon, handler: iconHandler(services.icons) }];
}
