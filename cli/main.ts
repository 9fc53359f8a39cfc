import { Command, CommanderError } from 'commander';
import { CommandExit, EXIT, reportError } from './errors.js';
import { registerAdminCommands } from './commands/admin.js';
import { registerServeCommand } from './commands/serve.js';
import { registerClientCommands } from './commands/index.js';
import { endQuietlyOnClosedPipe } from './output/pipes.js';
import { toolVersion } from './version.js';

export interface CliIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
}

const EXIT_CODES_HELP = `
Exit codes:
  0  success
  1  failure (the message says what went wrong and, where you can fix it, how)
  2  usage error (unknown command or option, missing argument)
  130  interrupted (Ctrl-C) during a push: what was not sent stays queued`;

export function buildProgram(io: CliIo): Command {
  const program = new Command('fieldops')
    .description('fieldops: field-operations server and its command-line companion')
    .version(toolVersion(), '-V, --version', 'print the version')
    .option('--debug', 'print the stack behind an error too (also LOG_LEVEL=debug)')
    .addHelpText('after', EXIT_CODES_HELP)
    .exitOverride()
    .configureOutput({ writeOut: (text) => io.stdout.write(text), writeErr: (text) => io.stderr.write(text) })
    // A mistyped command gets commander's "Did you mean ...?" and this line, not the whole help.
    .showHelpAfterError('(run `fieldops --help` for the commands, `fieldops <command> --help` for their options)');
  registerServeCommand(program, io);
  registerAdminCommands(program, io);
  registerClientCommands(program, io);
  return program;
}

/** Runs the CLI; resolves to the process exit code. */
export async function main(argv: string[], io: CliIo = { stdout: process.stdout, stderr: process.stderr, env: process.env }): Promise<number> {
  // `fieldops status | head -4`: a reader that goes away ends the command quietly, as Unix tools do.
  endQuietlyOnClosedPipe(io.stdout);
  endQuietlyOnClosedPipe(io.stderr);
  const program = buildProgram(io);
  try {
    await program.parseAsync(argv);
    return EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') return EXIT.ok;
      return EXIT.usage;
    }
    if (error instanceof CommandExit) return error.exitCode;
    const debug = argv.includes('--debug') || /^(debug|trace)$/i.test(io.env.LOG_LEVEL ?? '');
    return reportError(error, io.stderr, { debug });
  }
}
