/**
 * Icons served at `/static/sprite-src/<name>.svg` (the `image_url` of catalog items). A site's
 * own icons live in `<data dir>/icons/` and win over the small built-in set in `static/icons/`
 * of the package. Names are plain file names (no folders), SVG only, 256 KB at most.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}\.svg$/;
export const MAX_ICON_BYTES = 256 * 1024;

export interface Icon {
  body: Buffer;
  etag: string;
}

export class IconLibrary {
  /** `dirs` in order of preference: the site's folder first, then the built-in set. */
  constructor(readonly dirs: readonly string[]) {}

  /** The icon's bytes, or null when no folder holds it (or the name is not an icon name). */
  async find(name: string): Promise<Icon | null> {
    if (!NAME.test(name) || name.includes('..')) return null;
    for (const dir of this.dirs) {
      const file = path.join(dir, name);
      let stat: fs.Stats;
      try {
        stat = await fs.promises.stat(file);
      } catch {
        continue;
      }
      if (!stat.isFile() || stat.size > MAX_ICON_BYTES) continue;
      const body = await fs.promises.readFile(file);
      return { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"` };
    }
    return null;
  }
}
