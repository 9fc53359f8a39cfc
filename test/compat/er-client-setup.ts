import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../helpers/cli.js';
import type { TestServer } from '../helpers/server.js';

/** Two features of one set, as `fieldops admin features import` reads them (GeoJSON). */
const FEATURES = {
  type: 'FeatureCollection',
  name: 'er-client boundaries',
  features: [
    { type: 'Feature', properties: { name: 'er-client gate' }, geometry: { type: 'Point', coordinates: [36.8, -1.4] } },
    { type: 'Feature', properties: { name: 'er-client fence' }, geometry: { type: 'LineString', coordinates: [[36.8, -1.4], [36.9, -1.5]] } },
  ],
};

/**
 * What er-client needs before it runs: the OAuth clients it logs in with (public clients with the
 * password and refresh grants, one in the server's default profile and one in the `earthranger`
 * profile, for the calls that need the original's envelope: `ERClient.post_event_file` reads
 * `["data"]`), and a feature group for `AsyncERClient.get_feature_group`, imported with the CLI
 * (`fieldops admin features import --json`, the only way features arrive; the feature set is the
 * group). `featureGroup` is '' when the import fails (`notes` says why; the runner's
 * get_feature_group then fails, if it is called).
 */
export async function erClientSetup(s: TestServer): Promise<{ clientId: string; earthRangerClientId: string; featureGroup: string; notes: string[] }> {
  const { admin, config } = s.server.runtime;
  await admin.createClient({ tenant: 'default', clientId: 'er_client_test', grants: ['password', 'refresh_token'] });
  await admin.createClient({ tenant: 'default', clientId: 'er_client_envelope', grants: ['password', 'refresh_token'], profile: 'earthranger' });
  const notes: string[] = [];
  let featureGroup = '';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'er-client-features-'));
  const file = path.join(dir, 'er-client-boundaries.geojson');
  fs.writeFileSync(file, JSON.stringify(FEATURES));
  const imported = await runCli(['admin', 'features', 'import', file, '--database', config.database.dialect === 'sqlite' ? config.database.filename : config.database.url, '--data-dir', config.dataDir, '--json']);
  fs.rmSync(dir, { recursive: true, force: true });
  if (imported.code !== 0) notes.push(`fieldops admin features import: exit ${imported.code}: ${imported.stderr.slice(-500)}`);
  else {
    try {
      featureGroup = String((JSON.parse(imported.stdout) as { featureset: { id: string } }).featureset.id);
    } catch (error) {
      notes.push(`fieldops admin features import --json printed no featureset id (${String(error)}): ${imported.stdout.slice(0, 500)}`);
    }
  }
  return { clientId: 'er_client_test', earthRangerClientId: 'er_client_envelope', featureGroup, notes };
}
