import t from 'tap';
import { ManualClock, dialect, startTestServer } from '../helpers/server.js';
import { send } from '../helpers/catalog.js';

const P = '/api/v1.0/activity/patrols';
const DAY = 24 * 3600_000;

/**
 * The date-range overlap table: which patrols a window [lower, upper] returns, with
 * patrols_overlap_daterange true (overlap) and false (starts within).
 */
t.test(`patrol list date_range semantics (${dialect})`, async (t) => {
  const clock = new ManualClock(Date.UTC(2026, 10, 10, 0, 0, 0));
  const s = await startTestServer(t, { clock, env: { FIELDOPS_PATROL_SWEEP_SECONDS: '0' } });
  if (!s) return;
  const token = (await s.login()).access_token;
  const day = (n: number) => new Date(Date.UTC(2026, 10, n)).toISOString();
  const patrols: Array<[string, Record<string, unknown>]> = [
    ['inside', { patrol_segments: [{ time_range: { start_time: day(12), end_time: day(13) } }] }],
    ['overlaps start', { patrol_segments: [{ time_range: { start_time: day(8), end_time: day(11) } }] }],
    ['overlaps end', { patrol_segments: [{ time_range: { start_time: day(14), end_time: day(20) } }] }],
    ['spans', { patrol_segments: [{ time_range: { start_time: day(1), end_time: day(30) } }] }],
    ['before', { patrol_segments: [{ time_range: { start_time: day(1), end_time: day(5) } }] }],
    ['after', { patrol_segments: [{ time_range: { start_time: day(20), end_time: day(21) } }] }],
    ['open-ended', { patrol_segments: [{ time_range: { start_time: day(3), end_time: null } }] }],
    ['open-ended later', { patrol_segments: [{ time_range: { start_time: day(22) } }] }],
    ['scheduled-only inside', { patrol_segments: [{ scheduled_start: day(12), scheduled_end: day(13) }] }],
    ['scheduled-only outside', { patrol_segments: [{ scheduled_start: day(25), scheduled_end: day(26) }] }],
    ['cancelled inside', { state: 'cancelled', patrol_segments: [{ scheduled_start: day(12), scheduled_end: day(13) }] }],
    ['no times', { patrol_segments: [{}] }],
    ['no segments', {}],
  ];
  for (const [title, body] of patrols) {
    const created = await s.json(P, send('POST', { title, ...body }, token));
    t.equal(created.status, 201, `${title}: ${JSON.stringify(created.body)}`);
  }
  const titles = async (filter: unknown, extra = '') => {
    const response = await s.json(`${P}?page_size=100&filter=${encodeURIComponent(JSON.stringify(filter))}${extra}`, { token });
    t.equal(response.status, 200);
    return response.body.results.map((p: { title: string }) => p.title).sort();
  };
  const range = { lower: day(10), upper: day(15) };
  t.same(await titles({ date_range: range }), ['cancelled inside', 'inside', 'open-ended', 'overlaps end', 'overlaps start', 'scheduled-only inside', 'spans'].sort(), 'overlap (the default)');
  t.same(await titles({ date_range: range, patrols_overlap_daterange: false }), ['cancelled inside', 'inside', 'overlaps end', 'scheduled-only inside'].sort(), 'starts within');
  t.same(await titles({ date_range: range }, '&status=cancelled'), ['cancelled inside'], 'combined with a status');
  t.same(await titles({ date_range: { lower: day(21) } }), ['after', 'open-ended', 'open-ended later', 'scheduled-only outside', 'spans'].sort(), 'lower bound only');
  t.same(await titles({ date_range: { upper: day(4) } }), ['before', 'open-ended', 'spans'].sort(), 'upper bound only');
  const all = await titles({});
  t.equal(all.length, patrols.length, 'no date_range: everything, with or without times');
  t.equal((await s.json(`${P}?filter=${encodeURIComponent(JSON.stringify({ date_range: { lower: day(15), upper: day(10) } }))}`, { token })).status, 400, 'lower after upper');
});
