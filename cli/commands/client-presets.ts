import type { NewClientCommand } from '../../server/domain/admin.js';
import { EXIT, UserFacingError } from '../errors.js';

/** What `--preset` fills in (CONTRACT §11); kept here so the CLI need not load the server to list them. */
const PRESETS: Readonly<Record<string, { clientId: string; grants: string[]; profile: string }>> = {
  'web-app': { clientId: 'das_web_client', grants: ['password', 'refresh_token'], profile: 'earthranger' },
  'mobile-app': { clientId: 'er_mobile_tracker', grants: ['password', 'refresh_token'], profile: 'earthranger' },
};

/**
 * The create-client command with its preset applied: the preset gives the client id, grants
 * and profile; options given explicitly win.
 */
export function presetClient(preset: string | undefined, command: Partial<NewClientCommand> & { tenant: string }): NewClientCommand {
  if (preset === undefined) {
    if (!command.clientId) throw new UserFacingError('create-client needs --client-id or --preset', `Presets: ${Object.keys(PRESETS).join(', ')}.`, EXIT.usage);
    return command as NewClientCommand;
  }
  const values = Object.hasOwn(PRESETS, preset) ? PRESETS[preset] : undefined;
  if (!values) throw new UserFacingError(`unknown preset "${preset}"`, `Presets: ${Object.keys(PRESETS).join(', ')}.`, EXIT.usage);
  return {
    ...command,
    clientId: command.clientId ?? values.clientId,
    grants: command.grants?.length ? command.grants : values.grants,
    profile: command.profile ?? values.profile,
  };
}
