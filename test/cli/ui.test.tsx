/**
 * The Ink views (ink-testing-library), the pure state they render, and the plain-line fallback
 * used without a terminal.
 */
import '../helpers/not-in-ci.js';
import { PassThrough } from 'node:stream';
import { render } from 'ink-testing-library';
import t from 'tap';
import { commandContext } from '../../cli/context.js';
import { ProgressBar } from '../../cli/ui/ProgressBar.js';
import { ReplayProgress } from '../../cli/ui/ReplayProgress.js';
import { SyncProgress } from '../../cli/ui/SyncProgress.js';
import { syncDisplay } from '../../cli/ui/sync-display.js';
import { usableColumns } from '../../cli/ui/live.js';
import { initialSyncProgress, reduceSyncProgress } from '../../cli/ui/sync-progress-state.js';
import type { SyncEvent } from '../../sync/engine/run-sync.js';

t.test('ProgressBar: filled cells and percentage', async (t) => {
  const { lastFrame, rerender, unmount } = render(<ProgressBar done={3} total={10} width={10} />);
  t.equal(lastFrame(), '[███░░░░░░░]  30%');
  rerender(<ProgressBar done={10} total={10} width={10} />);
  t.equal(lastFrame(), '[██████████] 100%');
  rerender(<ProgressBar done={0} total={0} width={4} />);
  t.equal(lastFrame(), '[░░░░]   0%', 'an unknown total is an empty bar');
  unmount();
});

t.test('SyncProgress follows the engine events', async (t) => {
  const events: SyncEvent[] = [
    { type: 'fetching', resource: 'patrol_types' },
    { type: 'fetching', resource: 'choices' },
    { type: 'fetched', resource: 'choices', status: 304, bytes: 0 },
  ];
  let state = events.reduce(reduceSyncProgress, initialSyncProgress(['patrol_types', 'trackedby', 'choices']));
  const { lastFrame, rerender, unmount } = render(<SyncProgress state={state} />);
  t.same(lastFrame()!.split('\n').map((l) => l.trimEnd()), ['patrol_types  reading…', 'trackedby     waiting', 'choices       unchanged (0 B)']);
  state = reduceSyncProgress(state, { type: 'fetched', resource: 'patrol_types', status: 200, bytes: 2048 });
  state = reduceSyncProgress(state, { type: 'committing' });
  rerender(<SyncProgress state={state} />);
  t.match(lastFrame(), /patrol_types  changed \(2\.0 KiB\)/);
  t.match(lastFrame(), /writing the mirror…/);
  state = reduceSyncProgress(state, { type: 'applying', resource: 'patrol_types', done: 500, total: 1000 });
  rerender(<SyncProgress state={state} />);
  t.match(lastFrame(), /writing +\[█{15}░{15}\]  50% patrol_types/);
  unmount();
});

t.test('ReplayProgress: bar, pace and outcomes so far', async (t) => {
  const { lastFrame, unmount } = render(
    <ReplayProgress recording="collars.ndjson" done={12} total={24} counts={{ created: 10, duplicate: 1, accepted: 0, rejected: 1 }} rate={4.25} lastLine={13} />,
  );
  const frame = lastFrame()!;
  t.match(frame, /^Replaying collars\.ndjson \(line 13\)\n/);
  t.match(frame, /\[█{15}░{15}\]  50% 12\/24 · 4\.3\/s/);
  t.match(frame, /10 created · 1 duplicate · 1 rejected/);
  t.notMatch(frame, /accepted/, 'no heartbeats, no "accepted"');
  unmount();
});

t.test('without a terminal, sync progress is plain lines on stderr', async (t) => {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let text = '';
  stderr.on('data', (chunk) => (text += chunk));
  const ctx = commandContext({ stdout, stderr, env: {} }, {});
  const display = await syncDisplay(ctx, ['patrol_types']);
  display.onEvent({ type: 'fetching', resource: 'patrol_types' });
  display.onEvent({ type: 'fetched', resource: 'patrol_types', status: 200, bytes: 3 * 1024 * 1024 });
  display.onEvent({ type: 'applying', resource: 'patrol_types', done: 250, total: 1000 });
  await display.stop();
  t.equal(text, 'patrol_types: HTTP 200, 3.0 MiB\nwriting patrol_types: 250/1000\n');
  t.notMatch(text, /\u001b/, 'no escape codes');
});

t.test('on a terminal the same display is a live Ink view', async (t) => {
  const stderr = Object.assign(new PassThrough(), { isTTY: true, columns: 80, rows: 24 });
  let text = '';
  stderr.on('data', (chunk) => (text += chunk));
  const ctx = commandContext({ stdout: new PassThrough(), stderr, env: {} }, {});
  t.equal(ctx.stderrTty, true);
  const display = await syncDisplay(ctx, ['patrol_types', 'choices']);
  display.onEvent({ type: 'fetched', resource: 'choices', status: 304, bytes: 0 });
  await display.stop();
  t.match(text, /patrol_types/);
  t.match(text, /choices\s+unchanged \(0 B\)/);
});

t.test('colours only on a terminal, and never with NO_COLOR', async (t) => {
  const tty = () => Object.assign(new PassThrough(), { isTTY: true });
  t.equal(commandContext({ stdout: tty(), stderr: tty(), env: {} }, {}).out.enabled, true);
  t.equal(commandContext({ stdout: tty(), stderr: tty(), env: { NO_COLOR: '1' } }, {}).out.enabled, false);
  t.equal(commandContext({ stdout: new PassThrough(), stderr: tty(), env: {} }, {}).out.enabled, false);
  t.equal(commandContext({ stdout: tty(), stderr: tty(), env: { NO_COLOR: '' } }, {}).err.enabled, true, 'an empty NO_COLOR does not count');
});

t.test('a terminal that reports 0 columns still gets whole lines (issue 14)', async (t) => {
  t.equal(usableColumns(0), 80);
  t.equal(usableColumns(undefined), 80);
  t.equal(usableColumns(120), 120);
  const previous = process.env.COLUMNS;
  process.env.COLUMNS = '0';
  t.teardown(() => (previous === undefined ? delete process.env.COLUMNS : (process.env.COLUMNS = previous)));
  const stderr = Object.assign(new PassThrough(), { isTTY: true, columns: 0, rows: 24 });
  let text = '';
  stderr.on('data', (chunk) => (text += chunk));
  const ctx = commandContext({ stdout: new PassThrough(), stderr, env: {} }, {});
  const display = await syncDisplay(ctx, ['patrol_types', 'choices']);
  display.onEvent({ type: 'fetched', resource: 'choices', status: 304, bytes: 0 });
  await display.stop();
  t.match(text, /choices\s+unchanged \(0 B\)/, 'not one character per line');
});
