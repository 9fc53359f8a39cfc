/**
 * The interactive form of `fieldops events new` (Ink, ink-testing-library): generated from a
 * type's fields, typed and picked with the keys a ranger uses; its state machine on its own.
 */
import '../helpers/not-in-ci.js';
import { render } from 'ink-testing-library';
import t from 'tap';
import { formReducer, initialForm, type FormState } from '../../cli/record/event-form-state.js';
import type { FieldSpec } from '../../cli/record/event-type.js';
import { EventForm } from '../../cli/ui/EventForm.js';

const FIELDS: FieldSpec[] = [
  { name: 'species', title: 'Species', kind: 'choice', required: true, options: [{ value: 'elephant', display: 'Elephant' }, { value: 'lion', display: 'Lion' }] },
  { name: 'behaviours', title: 'Behaviours', kind: 'multichoice', required: false, options: [{ value: 'feeding', display: 'Feeding' }, { value: 'moving', display: 'Moving' }, { value: 'resting', display: 'Resting' }] },
  { name: 'group_size', title: 'Group size', kind: 'integer', required: false, options: [] },
  { name: 'point', title: 'Point', kind: 'location', required: false, options: [] },
  { name: 'counts', title: 'Counts', kind: 'json', required: false, options: [] },
  { name: 'notes', title: 'Notes', kind: 'text', required: true, options: [] },
];

const tick = () => new Promise((resolve) => setTimeout(resolve, 30));
const ENTER = '\r';
const DOWN = '\u001b[B';

t.test('the form fills every kind of field', async (t) => {
  let ended: FormState | null = null;
  const { stdin, lastFrame, unmount } = render(<EventForm type="wildlife_sighting" fields={FIELDS} onEnd={(state) => (ended = state)} />);
  await tick();
  t.match(lastFrame(), /wildlife_sighting field 1 of 6/);
  t.match(lastFrame(), /› Elephant/);
  for (const key of [DOWN, ENTER]) {
    stdin.write(key);
    await tick();
  }
  t.match(lastFrame(), /Behaviours/);
  for (const key of [' ', DOWN, DOWN, ' ', ENTER]) {
    stdin.write(key);
    await tick();
  }
  t.match(lastFrame(), /Group size/);
  for (const key of ['1', '2', 'x', ENTER]) {
    stdin.write(key);
    await tick();
  }
  t.match(lastFrame(), /"12x" is not a whole number/, 'a wrong value is said at once');
  for (const key of ['\u007f', ENTER]) {
    stdin.write(key);
    await tick();
  }
  for (const text of ['-1.29,36.82', '[{"count": 2}]', '']) {
    stdin.write(text);
    await tick();
    stdin.write(ENTER);
    await tick();
  }
  t.match(lastFrame(), /Notes is required/);
  stdin.write('by the river');
  await tick();
  stdin.write(ENTER);
  await tick();
  t.ok(ended, 'ended');
  t.same(ended!.values, { species: 'lion', behaviours: ['feeding', 'resting'], group_size: 12, point: { latitude: -1.29, longitude: 36.82 }, counts: [{ count: 2 }], notes: 'by the river' });
  unmount();
});

t.test('the state machine: optional choice, cancel', async (t) => {
  const optional: FieldSpec[] = [{ ...FIELDS[0]!, required: false }];
  let state = initialForm(optional);
  state = formReducer(state, { input: '', return: true });
  t.ok(state.done);
  t.same(state.values, {}, '"(none)" leaves an optional choice out');
  state = formReducer(initialForm(FIELDS), { input: '', escape: true });
  t.ok(state.cancelled);
});

t.test('the push progress view', async (t) => {
  const { PushProgress } = await import('../../cli/ui/PushProgress.js');
  const { lastFrame, rerender, unmount } = render(<PushProgress done={0} total={4} sent={0} rejected={0} conflicts={0} current={null} />);
  t.match(lastFrame(), /pushing\s+\[░+\]\s+0% 0\/4/);
  rerender(<PushProgress done={3} total={4} sent={2} rejected={1} conflicts={0} current="event.create sheet.csv:4" />);
  t.match(lastFrame(), /75% 3\/4/);
  t.match(lastFrame(), /2 sent, 1 rejected · event.create sheet.csv:4/);
  t.notMatch(lastFrame(), /conflict/);
  unmount();
});
