/** Shared set-up of the offline write path tests: a seeded server, a synced CLI, datasheets. */
import fs from 'node:fs';
import path from 'node:path';
import type { Test } from 'tap';
import { cliEnv, type CliEnv } from '../helpers/cli-env.js';
import type { TestServer } from '../helpers/server.js';

export const EVENTS = '/api/v1.0/activity/events';

/** A CSV datasheet of `rows` wildlife sightings (choices by value and by display, alternately). */
export function sightingsCsv(rows: number, start = Date.UTC(2026, 10, 1, 6, 0, 0)): string {
  const lines = ['time,latitude,longitude,priority,state,notes,species'];
  for (let i = 0; i < rows; i++) {
    const species = i % 2 === 0 ? 'elephant' : 'Lion';
    lines.push(`${new Date(start + i * 60_000).toISOString()},${(-1.2 - i / 1e5).toFixed(6)},${(36.8 + i / 1e5).toFixed(6)},100,new,"sighting ${i}, herd",${species}`);
  }
  return lines.join('\n') + '\n';
}

export function writeFile(env: CliEnv, name: string, text: string): string {
  const file = path.join(env.dir, name);
  fs.writeFileSync(file, text);
  return file;
}

/** A CLI logged in through `url` and synced (the mirror's catalogs are what records are checked against). */
export async function syncedCli(t: Test, url: string, extra: Record<string, string> = {}): Promise<CliEnv> {
  const cli = cliEnv(t, { FIELDOPS_RETRIES: '1', ...extra });
  const login = await cli.login(url);
  if (login.code !== 0) throw new Error(`login: ${login.stderr}`);
  const sync = await cli.run(['sync']);
  if (sync.code !== 0) throw new Error(`sync: ${sync.stderr}`);
  return cli;
}

/** Every event on the server (ids and notes), read through the API. */
export async function serverEvents(s: TestServer, token: string): Promise<Array<{ id: string; event_details: Record<string, unknown> }>> {
  const all: Array<{ id: string; event_details: Record<string, unknown> }> = [];
  for (let page = 1; ; page++) {
    const response = await s.json(`${EVENTS}?page_size=4000&page=${page}`, { token });
    if (response.status === 404) break;
    if (response.status !== 200) throw new Error(`events list: ${response.status}`);
    all.push(...response.body.results);
    if (!response.body.next) break;
  }
  return all;
}

/** The outbox rows as the mirror holds them. */
export async function outboxOf(cli: CliEnv): Promise<{ counts: Record<string, number>; entries: Array<{ id: string; status: string; reason: string | null; kind: string }> }> {
  const result = await cli.json(['outbox', '--all']);
  if (result.code !== 0) throw new Error(`outbox: ${result.stderr}`);
  return result.body;
}

/** A GPX track of `points` points, one a second. */
export function gpxTrack(points: number, start = Date.UTC(2026, 10, 1, 6, 0, 0)): string {
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>', '<gpx version="1.1" creator="test"><trk><name>t</name><trkseg>'];
  for (let i = 0; i < points; i++) {
    lines.push(`<trkpt lat="${(-1.2 - i / 1e6).toFixed(7)}" lon="${(36.8 + i / 1e6).toFixed(7)}"><ele>${1600 + (i % 50)}</ele><time>${new Date(start + i * 1000).toISOString()}</time></trkpt>`);
  }
  lines.push('</trkseg></trk></gpx>');
  return lines.join('\n') + '\n';
}

/** How many observations the server holds (through the API). */
export async function serverObservationCount(s: TestServer, token: string): Promise<number> {
  const response = await s.json('/api/v1.0/observations?page_size=1', { token });
  if (response.status !== 200) throw new Error(`observations: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.count ?? response.body.data?.count;
}
