/** The client half of the CLI: every command that talks to a server or works offline. */
import type { Command } from 'commander';
import type { CliIo } from '../main.js';
import { registerChoicesCommands } from './choices.js';
import { registerLintCommand } from './lint.js';
import { registerLoginCommand } from './login.js';
import { registerLogoutCommand } from './logout.js';
import { registerMigrateCommand } from './migrate.js';
import { registerReplayCommand } from './replay.js';
import { registerStatusCommand } from './status.js';
import { registerSyncCommand } from './sync.js';
import { registerTrackedByCommand } from './trackedby.js';
import { registerTypesCommands } from './types.js';
import { registerWhoamiCommand } from './whoami.js';
import { registerOfflineWriteCommands } from './offline-write.js';
import { registerVerifyCommand } from './verify.js';
import { registerExportCommand } from './export.js';
import { registerSchemaCommands } from './schema.js';

export function registerClientCommands(program: Command, io: CliIo): void {
  registerLoginCommand(program, io);
  registerLogoutCommand(program, io);
  registerWhoamiCommand(program, io);
  registerSyncCommand(program, io);
  registerStatusCommand(program, io);
  registerTypesCommands(program, io);
  registerTrackedByCommand(program, io);
  registerLintCommand(program, io);
  registerMigrateCommand(program, io);
  registerReplayCommand(program, io);
  registerChoicesCommands(program, io);
  registerOfflineWriteCommands(program, io);
  registerVerifyCommand(program, io);
  registerExportCommand(program, io);
  registerSchemaCommands(program, io);
}
