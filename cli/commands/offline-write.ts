/** The offline write path's commands (issue 16), registered together: one line in index.ts. */
import type { Command } from 'commander';
import type { CliIo } from '../main.js';
import { registerEventsCommands } from './events.js';
import { registerObservationsCommands } from './observations.js';
import { registerOutboxCommands } from './outbox.js';
import { registerPatrolsCommands } from './patrols.js';
import { registerPullCommand } from './pull.js';
import { registerSubjectsCommands } from './subjects.js';
import { registerPushCommand } from './push.js';

export function registerOfflineWriteCommands(program: Command, io: CliIo): void {
  registerEventsCommands(program, io);
  registerPushCommand(program, io);
  registerOutboxCommands(program, io);
  registerPullCommand(program, io);
  registerPatrolsCommands(program, io);
  registerSubjectsCommands(program, io);
  registerObservationsCommands(program, io);
}
