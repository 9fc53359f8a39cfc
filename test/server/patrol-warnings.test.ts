/**
 * Issue 14 item 5: no process warning while patrols are written and read. On PostgreSQL the
 * patrol views used to queue queries on a busy transaction client (pg's DeprecationWarning).
 * Also checks that the suite's guard recognises a warning printed by a child process.
 */
import t from 'tap';
import { createType, send } from '../helpers/catalog.js';
import { dialect, startTestServer } from '../helpers/server.js';
import { childWarningLines } from '../helpers/warnings.js';

t.test('the guard reads warnings in a child\'s stderr', async (t) => {
  t.same(childWarningLines('listening\n(node:4242) [DEP0169] DeprecationWarning: url.parse() is deprecated\n(node:1) Warning: x\nfine'), [
    '(node:4242) [DEP0169] DeprecationWarning: url.parse() is deprecated',
    '(node:1) Warning: x',
  ]);
  t.same(childWarningLines('no warnings here\nDeprecationWarning in a sentence'), []);
});

t.test(`writing and reading patrols emits no process warning (${dialect})`, async (t) => {
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
  process.on('warning', onWarning);
  t.teardown(() => void process.off('warning', onWarning));
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  await createType(s, token, { value: 'foot', display: 'Foot' });
  const start = new Date(Date.now() + 3600_000).toISOString();
  const created = await s.json('/api/v1.0/activity/patrols', send('POST', { title: 'Boundary', patrol_segments: [{ patrol_type: 'foot', scheduled_start: start }], notes: [{ text: 'pliers' }] }, token));
  t.equal(created.status, 201, JSON.stringify(created.body));
  const changed = await s.json(`/api/v1.0/activity/patrols/${created.body.id}`, send('PATCH', { title: 'Boundary north' }, token));
  t.equal(changed.status, 200, JSON.stringify(changed.body));
  t.equal((await s.json('/api/v1.0/activity/patrols', { token })).status, 200);
  // Warnings are emitted on the next tick.
  await new Promise((resolve) => setImmediate(resolve));
  t.same(warnings, [], 'no warnings');
});
