import { NotFoundError } from '../../domain/errors.js';
import type { IconLibrary } from '../../storage/icons.js';
import { etagListMatches } from '../conditional.js';
import type { AppContext } from '../state.js';

/** An SVG may hold script: served so a browser never runs it (CSP, nosniff), revalidated by ETag. */
const CSP = "default-src 'none'; style-src 'unsafe-inline'; sandbox";

/** What an SVG name outside the set is answered with. */
const FALLBACK = 'generic.svg';

export function iconHandler(icons: IconLibrary) {
  return async (ctx: AppContext) => {
    const file = String(ctx.params.file);
    // A type or subject whose icon is not in the set (a v1 type names none; a site's own may be
    // missing) shows the generic icon, never a broken image on the map (issue 27).
    const icon = (await icons.find(file)) ?? (file.endsWith('.svg') ? await icons.find(FALLBACK) : null);
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
