import fc from 'fast-check';
import t from 'tap';
import { MAX_DETAILS_ISSUES } from '../../schema/index.js';
import { adversarialDetails, adversarialSchema, SCHEMA_RUNS } from '../helpers/adversarial-schemas.js';
import { send } from '../helpers/catalog.js';
import { heldLoop, LOOP_DELAY_BOUND_MS, withLoopDelay } from '../helpers/loop-delay.js';
import { dialect, startTestServer } from '../helpers/server.js';

/**
 * Large and adversarial schema documents and event_details (issue 13): many invalid values,
 * long strings against catastrophic patterns, deep nesting, many and huge unknown keywords.
 * Each case's budget is checked as event-loop delay (the server runs in this process): no
 * request may hold the loop longer than LOOP_DELAY_BOUND_MS, whatever its answer, and none is
 * a 5xx. FUZZ_SCHEMA_RUNS sets the number of cases (default 30; each is up to ~1 MB).
 */
t.test(`fuzzing schemas and event_details with adversarial documents (${dialect}, ${SCHEMA_RUNS} cases)`, async (t) => {
  const s = await startTestServer(t);
  if (!s) return;
  const token = (await s.login()).access_token;
  for (const value of ['lion', 'eland', 'zebra']) await s.json('/api/v2.0/choices', send('POST', { field: 'fuzz_species', value, display: value }, token));
  let worst = 0;
  const statuses = new Map<number, number>();
  const check = (what: string, status: number, text: string, measured: { maxDelayMs: number; cpuMs: number }) => {
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
    worst = Math.max(worst, Math.min(measured.maxDelayMs, measured.cpuMs));
    if (process.env.FUZZ_DEBUG) t.comment(`${measured.maxDelayMs.toFixed(0)} ms (CPU ${measured.cpuMs.toFixed(0)} ms) ${status} ${what}`);
    if (status >= 500) throw new Error(`${what} → ${status}: ${text.slice(0, 300)}`);
    if (heldLoop(measured)) throw new Error(`${what} held the event loop for ${measured.maxDelayMs.toFixed(0)} ms (CPU ${measured.cpuMs.toFixed(0)} ms)`);
  };
  let n = 0;
  await fc.assert(
    fc.asyncProperty(adversarialSchema, adversarialDetails, async (schema, details) => {
      const value = `fuzz-${n++}`;
      const write = await withLoopDelay(async () => {
        const response = await s.request('/api/v2.0/activity/eventtypes', send('POST', { value, display: value, schema: schema.document }, token));
        return { status: response.status, text: await response.text() };
      });
      check(`schema (${schema.label})`, write.result.status, write.result.text, write);
      if (write.result.status !== 201) return;
      const event = await withLoopDelay(async () => {
        const response = await s.request('/api/v1.0/activity/events', send('POST', { event_type: value, event_details: details.build(schema.fieldNames) }, token));
        return { status: response.status, text: await response.text() };
      });
      check(`event_details (${details.label}) for schema (${schema.label})`, event.result.status, event.result.text, event);
      if (event.result.status === 400) {
        const issues = (JSON.parse(event.result.text) as { event_details?: unknown[] }).event_details ?? [];
        if (issues.length > MAX_DETAILS_ISSUES + 1) throw new Error(`${issues.length} issues reported; the cap is ${MAX_DETAILS_ISSUES} plus a count`);
      }
    }),
    { numRuns: SCHEMA_RUNS, seed: Number(process.env.FUZZ_SEED ?? 20261123) },
  );
  t.comment(`statuses: ${[...statuses.entries()].sort((a, b) => a[0] - b[0]).map(([k, v]) => `${k}: ${v}`).join(', ')}; worst loop delay ${worst.toFixed(0)} ms`);
  t.ok(worst < LOOP_DELAY_BOUND_MS, `no request held the loop ${LOOP_DELAY_BOUND_MS} ms or more (worst, the smaller of delay and CPU time: ${worst.toFixed(0)} ms)`);
  t.ok((statuses.get(201) ?? 0) > 0 && (statuses.get(400) ?? 0) > 0, 'both accepted and refused cases were generated');
});
