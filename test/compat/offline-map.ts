import zlib from 'node:zlib';
import type { Page, Route } from 'playwright-core';

/**
 * Mapbox's side of the web app's map, answered locally: this machine has no internet, and
 * Mapbox GL only reports `map.loaded()` (and the app only draws its subjects and events) once
 * the style and every source in it have loaded. A third-party boundary, so it is stubbed with
 * the least that lets the map reach "loaded", nothing of the app is changed:
 *
 * - the base style (REACT_APP_BASE_MAP_STYLES, `mapbox://styles/<user>/<id>`): version 8, one
 *   background layer, no sources, no sprite (the app adds its own images), with glyphs (the
 *   app's own layers are symbol layers with `text-font`, which needs glyphs);
 * - the terrain source the app always adds (`mapbox-dem`, `mapbox://mapbox.mapbox-terrain-dem-v1`,
 *   das-web-react TerrainLayer): its TileJSON, and flat terrain-RGB tiles (0 m: the app turns 3D terrain on by default);
 * - glyphs: a PBF naming the font stack and range with no glyph in it (labels have no text,
 *   symbols' icons still draw; an empty body makes Mapbox GL fail every tile with a symbol layer);
 * - Mapbox telemetry and billing pings (events.mapbox.com, map-sessions): 204.
 *
 * Any other off-origin request is aborted and recorded in `refused` (for failure messages).
 * Registered after the session's own route, it takes precedence; requests to the app's origin
 * fall back to that route.
 */
export async function serveMapOffline(page: Page, origin: string): Promise<{ refused: string[] }> {
  const refused: string[] = [];
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(origin)) return route.fallback();
    const answer = answerFor(new URL(url));
    if (!answer) {
      refused.push(url);
      return route.abort();
    }
    return fulfil(route, answer);
  });
  return { refused };
}

interface Answer {
  status?: number;
  contentType?: string;
  body?: string | Buffer;
}

const MAPBOX = 'https://api.mapbox.com';
const DEM_TILESET = 'mapbox.mapbox-terrain-dem-v1';

function answerFor(url: URL): Answer | null {
  if (url.hostname === 'events.mapbox.com') return { status: 204 };
  if (url.hostname !== 'api.mapbox.com') return null;
  const path = url.pathname;
  if (path.startsWith('/map-sessions/')) return { status: 204 };
  const style = /^\/styles\/v1\/([^/]+)\/([^/]+)$/.exec(path);
  if (style) return json(offlineStyle(`${style[1]}/${style[2]}`));
  const glyphs = /^\/fonts\/v1\/[^/]+\/([^/]+)\/(\d+-\d+)\.pbf$/.exec(path);
  if (glyphs) return { contentType: 'application/x-protobuf', body: noGlyphs(decodeURIComponent(glyphs[1]!), glyphs[2]!) };
  if (path === `/v4/${DEM_TILESET}.json`) return json(demTileJson());
  if (path.startsWith(`/v4/${DEM_TILESET}/`) || path.startsWith(`/raster/v1/${DEM_TILESET}/`)) return { contentType: 'image/png', body: flatDemTile() };
  return null;
}

/** A valid Mapbox style of a plain background: enough for the app to add its own layers. */
function offlineStyle(id: string): object {
  return {
    version: 8,
    name: `offline stand-in for ${id}`,
    glyphs: 'mapbox://fonts/mapbox/{fontstack}/{range}.pbf',
    sources: {},
    layers: [{ id: 'background', type: 'background', paint: { 'background-color': '#dde3d0' } }],
  };
}

/** The TileJSON Mapbox GL reads for `mapbox://mapbox.mapbox-terrain-dem-v1`. */
function demTileJson(): object {
  return {
    tilejson: '2.2.0',
    name: 'offline flat terrain',
    scheme: 'xyz',
    minzoom: 0,
    maxzoom: 14,
    bounds: [-180, -85.0511, 180, 85.0511],
    tiles: [`${MAPBOX}/v4/${DEM_TILESET}/{z}/{x}/{y}.png`],
  };
}

let flatTile: Buffer | null = null;
/**
 * A 512x512 terrain-RGB tile at 0 m everywhere: height = -10000 + (R*65536 + G*256 + B) * 0.1,
 * so 0 m is 100000 = (1, 134, 160).
 */
function flatDemTile(): Buffer {
  flatTile ??= png(512, 512, [1, 134, 160, 255]);
  return flatTile;
}

/**
 * A glyphs PBF (Mapbox's glyphs.proto: `glyphs { repeated fontstack stacks = 1 }`, `fontstack
 * { required string name = 1; required string range = 2; repeated glyph glyphs = 3 }`) holding
 * one font stack without glyphs.
 */
function noGlyphs(fontStack: string, range: string): Buffer {
  const stack = Buffer.concat([field(1, Buffer.from(fontStack)), field(2, Buffer.from(range))]);
  return field(1, stack);
}

/** A length-delimited protobuf field (wire type 2). */
function field(number: number, bytes: Buffer): Buffer {
  const length: number[] = [];
  for (let rest = bytes.length; ; rest >>>= 7) {
    if (rest < 0x80) {
      length.push(rest);
      break;
    }
    length.push((rest & 0x7f) | 0x80);
  }
  return Buffer.concat([Buffer.from([(number << 3) | 2, ...length]), bytes]);
}

function json(value: object): Answer {
  return { contentType: 'application/json', body: JSON.stringify(value) };
}

function fulfil(route: Route, answer: Answer): Promise<void> {
  return route.fulfill({
    status: answer.status ?? 200,
    headers: { 'access-control-allow-origin': '*', ...(answer.contentType ? { 'content-type': answer.contentType } : {}) },
    body: answer.body ?? '',
  });
}

/** An RGBA PNG of one colour (8-bit, no interlace), written with node:zlib. */
function png(width: number, height: number, rgba: [number, number, number, number]): Buffer {
  const row = Buffer.alloc(1 + width * 4);
  for (let x = 0; x < width; x++) row.set(rgba, 1 + x * 4);
  const pixels = Buffer.concat(Array.from({ length: height }, () => row));
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 6, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', zlib.deflateSync(pixels)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typed = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(typed));
  return Buffer.concat([length, typed, crc]);
}
