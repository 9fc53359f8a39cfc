import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { createTestDatabase, dialect, unavailableReason } from '../helpers/database.js';
import { runCli } from '../helpers/cli.js';
import { openDatabase } from '../../server/db/knex.js';

const collection = {
  type: 'FeatureCollection',
  features: [
    { type: 'Feature', properties: { title: 'Ranger post' }, geometry: { type: 'Point', coordinates: [36.8, -1.3] } },
    { type: 'Feature', properties: { title: 'Fence' }, geometry: { type: 'LineString', coordinates: [[36.8, -1.3], [36.9, -1.4]] } },
  ],
};

t.test(`fieldops admin features import (${dialect})`, async (t) => {
  const reason = await unavailableReason();
  if (reason) return void t.pass('skipped', { skip: reason });
  const db = await createTestDatabase();
  t.teardown(() => db.drop());
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldops-features-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const env = { DATABASE_URL: db.location, FIELDOPS_ADMIN_PASSWORD: 'Baobab-Shade-Seventy-7' };
  const admin = (...args: string[]) => runCli(['admin', 'features', 'import', ...args], { env });
  const write = (name: string, text: string) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, text);
    return file;
  };

  const good = write('posts.geojson', JSON.stringify(collection, null, 2));
  const first = await admin(good, '--create');
  t.equal(first.code, 0, first.stderr);
  t.match(first.stdout, /^imported feature set posts of default: 2 features \([0-9a-f-]{36}\)/, 'named after the file without --name');

  const named = await admin(good, '--name', 'Posts and fences', '--json');
  t.equal(named.code, 0, named.stderr);
  t.match(JSON.parse(named.stdout), { tenant: 'default', featureset: { name: 'Posts and fences', features: 2, replaced: false } });
  const replaced = await admin(write('one.geojson', JSON.stringify({ ...collection, features: collection.features.slice(0, 1) })), '--name', 'Posts and fences');
  t.match(replaced.stdout, /replaced feature set Posts and fences of default: 1 feature /);

  const syntax = await admin(write('broken.geojson', '{\n  "type": "FeatureCollection",\n  "features": [\n    {"type": "Feature",,}\n  ]\n}\n'));
  t.equal(syntax.code, 1);
  t.match(syntax.stderr, /^error: .*broken\.geojson:4:\d+: not valid JSON/m, 'FILE:line:column of the syntax error');
  t.match(syntax.stderr, /^hint: /m);

  const outside = await admin(write('swapped.geojson', JSON.stringify({ type: 'FeatureCollection', features: [{ type: 'Feature', properties: {}, geometry: { type: 'Point', coordinates: [-1.3, 136.8] } }] })));
  t.equal(outside.code, 1);
  t.match(outside.stderr, /^error: .*swapped\.geojson: features\[0\]\.geometry\.coordinates: \[-1\.3, 136\.8\] is outside/m);
  t.match(outside.stderr, /^hint: GeoJSON positions are \[longitude, latitude\]/m);

  const notCollection = await admin(write('feature.json', JSON.stringify(collection.features[0])));
  t.equal(notCollection.code, 1);
  t.match(notCollection.stderr, /not a GeoJSON FeatureCollection/);
  t.equal((await admin(path.join(dir, 'missing.geojson'))).code, 2, 'a missing file is a usage error');
  const noTenant = await admin(good, '--tenant', 'south');
  t.equal(noTenant.code, 1);
  t.match(noTenant.stderr, /No tenant "south"/);

  const database = openDatabase(db.config);
  t.teardown(() => database.close());
  const sets = await database.knex('feature_sets').orderBy('name').pluck('name');
  t.same(sets, ['Posts and fences', 'posts']);
  t.equal(Number((await database.knex('features').count({ n: '*' }).first())?.n), 3, 'failed imports wrote nothing');
});
