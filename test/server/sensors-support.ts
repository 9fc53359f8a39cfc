import fs from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../../server/domain/users/common-passwords.js';
import { type TestServer, jsonBody } from '../helpers/server.js';

/** Shared by the sensors*.test.ts suites. */
export const GPS = '/sensors/gps-radio/acme-collars/status';
export const OBSERVATIONS = '/api/v1.0/observations';

const BASE = Date.UTC(2026, 10, 20, 5, 0, 0);

/** `minute` minutes after 2026-11-20T08:00+03:00, written with that offset. */
export function at(minute: number, seconds = 0): string {
  const local = new Date(BASE + minute * 60_000 + seconds * 1000 + 3 * 3600_000).toISOString().replace('Z', '');
  return `${local}+03:00`;
}

export const epochOf = (minute: number, seconds = 0) => BASE + minute * 60_000 + seconds * 1000;

export function observation(manufacturerId: string, minute: number, extra: Record<string, unknown> = {}) {
  return { manufacturer_id: manufacturerId, recorded_at: at(minute), location: { lat: -1.29 + minute / 1000, lon: 36.82 }, ...extra };
}

export function post(s: TestServer, url: string, body: unknown, token?: string) {
  return s.json(url, jsonBody(body, token ? { token } : {}));
}

export function knexOf(s: TestServer) {
  return s.server.runtime.database.knex;
}

export async function countRows(s: TestServer, table: string, where: Record<string, unknown> = {}): Promise<number> {
  const row = await knexOf(s)(table).where(where).count({ n: '*' }).first();
  return Number(row?.n ?? 0);
}

/** An application principal (`?client_id=`) of `tenant` with the given permissions. */
export async function application(s: TestServer, clientId: string, permissions: string[], tenant = 'default'): Promise<string> {
  await s.server.runtime.admin.createClient({ tenant, clientId, permissions });
  return clientId;
}

/** A user of `tenant` with the given permissions, logged in. */
export async function userToken(s: TestServer, username: string, permissions: string[], tenant = 'default'): Promise<string> {
  const password = `Sensor-Test-Passphrase-${username.length}`;
  await s.server.runtime.admin.createUser({ tenant, username, password, permissions });
  return (await s.login(username, password)).access_token;
}

export function fixture(name: string): Buffer {
  return fs.readFileSync(path.join(packageRoot(), 'fixtures/sensors', name));
}

/**
 * A different image with the same EXIF: a COM segment inserted after the APPn segments makes
 * new bytes (a new sha256) without touching the metadata.
 */
export function variant(jpeg: Buffer, label: string): Buffer {
  let offset = 2;
  while (jpeg[offset] === 0xff && jpeg[offset + 1]! >= 0xe0 && jpeg[offset + 1]! <= 0xef) offset += 2 + jpeg.readUInt16BE(offset + 2);
  const text = Buffer.from(label, 'utf8');
  const comment = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from([(text.length + 2) >> 8, (text.length + 2) & 0xff]), text]);
  return Buffer.concat([jpeg.subarray(0, offset), comment, jpeg.subarray(offset)]);
}

/** A camera-trap multipart form; `image` null leaves the file out. */
export function cameraForm(image: Buffer | null, fields: Record<string, string> = {}, filename = 'IMG_0001.JPG'): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  if (image) form.append('filecontent.file', new Blob([image], { type: 'image/jpeg' }), filename);
  return form;
}

/** Every file under a directory, recursively (relative paths). */
export function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).map((entry) => path.relative(dir, path.join(entry.parentPath ?? entry.path, entry.name)));
}
