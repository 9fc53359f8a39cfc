/** Placeholder replaced by the Ink form below. */
import type { CommandContext } from '../context.js';
import type { EventTypeForRecording } from './event-type.js';
export async function askEventDetails(_ctx: CommandContext, _type: EventTypeForRecording): Promise<Record<string, unknown>> {
  return {};
}
