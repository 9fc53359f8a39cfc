import { NotFoundError } from '../../domain/errors.js';
import type { IconLibrary } from '../../storage/icons.js';
import { etagListMatches } from '../conditional.js';
import type { AppContext } from '../state.js';

/** An SVG may hold script: served so a browser never runs it (CSP, nosniff), revalidated by ETag. */
const CSP = "default-src 'none'; style-src 'unsafe-inline'; sandbox";

export function iconHandler(icons: IconLibrary) {
  return async (ctx: AppContext) => {
    const icon = await icons.find(String(ctx.params.file));
    if (!icon) throw new NotFoundError('No such icon.');
    ctx.set('ETag', icon.etag);
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Content-Security-Policy', CSP);
    if (etagListMatches(ctx.get('If-None-Match'), icon.etag)) {
      ctx.status = 304;
      return;
    }
    ctx.type = 'image/svg+xml';
    ctx.body = icon.body;
  };
}
