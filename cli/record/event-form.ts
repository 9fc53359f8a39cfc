/**
 * `fieldops events new` on a terminal without `--details`: the Ink form, generated from the
 * type's fields, on the terminal (stdin, stderr). Ink and React are loaded only here.
 */
import type { CommandContext } from '../context.js';
import { UserFacingError } from '../errors.js';
import type { FormState } from './event-form-state.js';
import type { EventTypeForRecording } from './event-type.js';

export async function askEventDetails(ctx: CommandContext, type: EventTypeForRecording): Promise<Record<string, unknown>> {
  if (type.fields.length === 0) return {};
  const [{ render }, { createElement }, { EventForm }] = await Promise.all([import('ink'), import('react'), import('../ui/EventForm.js')]);
  let finished: FormState | null = null;
  const instance = render(createElement(EventForm, { type: type.value, fields: type.fields, onEnd: (state: FormState) => { finished = state; instance.unmount(); } }), {
    stdout: ctx.io.stderr as NodeJS.WriteStream,
    stdin: process.stdin,
    exitOnCtrlC: false,
    patchConsole: false,
  });
  await instance.waitUntilExit();
  const state = finished as FormState | null;
  if (!state || state.cancelled) throw new UserFacingError('cancelled: nothing recorded', 'pass --details to record without the form');
  return state.values;
}
