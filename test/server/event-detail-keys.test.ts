/**
 * Issue 28: a top-level `event_details` key is bounded (200 characters): every key is counted in
 * the usage summaries' indexed column, and a longer one would fail the write on PostgreSQL's
 * index instead of answering a 400. Nothing is half-saved.
 */
import t from 'tap';
import { send } from '../helpers/catalog.js';
import { dialect, startTestServer } from '../helpers/server.js';
import { V2, openType } from './event-usage-expected.js';

const E = '/api/v1.0/activity/events';

t.test(`event_details keys are at most 200 characters (${dialect})`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  await openType(s, token, 'keys-open');
  const at = (length: number) => ({ event_type: 'keys-open', event_details: { ['k'.repeat(length)]: 1 } });
  const ok = await s.json(E, send('POST', at(200), token));
  t.equal(ok.status, 201, 'a 200-character key is accepted');
  for (const length of [201, 3000, 100_000]) {
    const refused = await s.json(E, send('POST', at(length), token));
    t.equal(refused.status, 400, `a ${length}-character key is a 400`);
    t.match(JSON.stringify(refused.body), /at most 200 characters/, 'saying why');
  }
  for (const name of ['a\u0000b', '\u0001', 'line\nbreak']) {
    const refused = await s.json(E, send('POST', { event_type: 'keys-open', event_details: { [name]: 1 } }, token));
    t.equal(refused.status, 400, `a key with a control character (${JSON.stringify(name)}) is a 400 on every database`);
    t.match(JSON.stringify(refused.body), /control characters/);
  }
  const patched = await s.json(`/api/v1.0/activity/event/${ok.body.id}`, send('PATCH', at(5000), token));
  t.equal(patched.status, 400, 'on an update too');
  const usage = await s.json(`${V2}/keys-open/usage`, { token });
  t.equal(usage.body.data.events, 1, 'only the accepted event is counted');
  t.same(Object.keys(usage.body.data.fields), ['k'.repeat(200)], 'with its own key, untouched by the refused update');
});
