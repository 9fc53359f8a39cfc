import fs from 'node:fs';
import type { Command } from 'commander';
import { connect, printJson, type CommandContext } from '../context.js';
import { CommandExit, EXIT, UserFacingError } from '../errors.js';
import type { CliIo } from '../main.js';
import { formatTable } from '../output/table.js';
import type { ReplayResult } from '../replay/run-replay.js';
import { clientAction, positiveInteger, positiveNumber, withCommonOptions } from './common.js';

interface ReplayOptions {
  profile?: string;
  json?: boolean;
  speed?: number;
  maxRate?: number;
  from?: number;
  allowOutside?: boolean;
}

export function registerReplayCommand(program: Command, io: CliIo): void {
  withCommonOptions(
    program
      .command('replay')
      .description('post a recording of sensor status messages to the server, keeping its timing')
      .argument('<recording>', 'NDJSON file: {"at": ISO time, "path": "/sensors/...", "body": {...}} per line')
      .option('--speed <x>', 'play x times faster than recorded (default 1: real time)', positiveNumber('--speed'))
      .option('--max-rate <n>', 'at most n requests per second (alone: ignore the recorded timing)', positiveNumber('--max-rate'))
      .option('--from <line>', 'start at this line of the file (resume an interrupted replay)', positiveInteger('--from'))
      .option('--allow-outside', "let camera-trap lines send images outside the recording's folder")
      .addHelpText(
        'after',
        '\nSafe to re-run: the server de-duplicates, so lines already stored count as "duplicate".\n' +
          'Exit codes: 0 every line stored or already there, 1 some were rejected or the replay stopped early, 2 usage error.',
      ),
  ).action(
    clientAction<ReplayOptions>(io, async (ctx, options, [file]) => {
      // Loaded when the command runs: other commands start without them.
      const [{ createPacer }, { parseRecording }, { runReplay }, { replayDisplay }] = await Promise.all([
        import('../replay/pacing.js'),
        import('../replay/recording.js'),
        import('../replay/run-replay.js'),
        import('../ui/replay-display.js'),
      ]);
      let text: string;
      try {
        text = fs.readFileSync(file!, 'utf8');
      } catch (error) {
        throw new UserFacingError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, 'check the path', 2);
      }
      const { lines, problems } = parseRecording(text, file!, { allowOutside: options.allowOutside });
      if (problems.length) {
        for (const p of problems.slice(0, 20)) ctx.info(`${file}:${p.line}: ${p.message}`);
        throw new UserFacingError(`${file} has ${problems.length} invalid line${problems.length === 1 ? '' : 's'}; nothing was sent`, 'fix them (each line is one JSON object: at, path, body[, file])');
      }
      const from = options.from ?? 1;
      const selected = lines.filter((l) => l.line >= from);
      if (selected.length === 0) throw new UserFacingError(`nothing to replay from line ${from} (the file has ${text.split(/\r?\n/).length} lines)`, undefined, 2);

      // Said up front: a faithful replay of a long recording is silent for a long time otherwise.
      ctx.info(`replaying ${selected.length} line${selected.length === 1 ? '' : 's'} of ${file}: ${expectedDuration(selected, options)}`);
      const connection = await connect(ctx, { retryUnsafe: true });
      const abort = new AbortController();
      const onSigint = () => abort.abort();
      process.once('SIGINT', onSigint);
      try {
        const display = await replayDisplay(ctx, file!, selected.length);
        let result: ReplayResult;
        try {
          const pacer = createPacer({ speed: options.speed, maxRate: options.maxRate, now: ctx.now, signal: abort.signal });
          result = await runReplay({ lines: selected, transport: connection.transport, server: connection.session.server, pacer, signal: abort.signal, onLine: display.onLine });
        } finally {
          await display.stop();
        }
        if (ctx.json) printJson(ctx, { recording: file, server: connection.session.server, from, ...jsonOf(result) });
        else ctx.print(renderOutcomes(ctx, result));
        if (result.stoppedBecause) {
          throw new UserFacingError(`replay stopped at line ${result.resumeFrom}: ${result.stoppedBecause}`, `${result.hint ? `${result.hint}; ` : ''}resume with \`fieldops replay ${file} --from ${result.resumeFrom}\``);
        }
        if (result.counts.rejected > 0) throw new CommandExit(EXIT.failure);
      } finally {
        process.off('SIGINT', onSigint);
        await connection.close();
      }
    }),
  );
}

function jsonOf(result: ReplayResult) {
  return {
    lines: result.total,
    sent: result.sent,
    outcomes: result.counts,
    rejected: result.rejected.map((r) => ({ line: r.line, status: r.status, reason: r.reason })),
    stopped: result.stoppedBecause,
    resume_from: result.resumeFrom,
  };
}

function renderOutcomes(ctx: CommandContext, result: ReplayResult): string {
  const rows = [
    [ctx.out.green('created'), String(result.counts.created), 'stored as new'],
    ['duplicate', String(result.counts.duplicate), 'already stored (a re-run, or repeated in the recording)'],
    ['accepted', String(result.counts.accepted), 'heartbeats and other status messages'],
    [result.counts.rejected ? ctx.out.red('rejected') : 'rejected', String(result.counts.rejected), 'refused by the server (reasons below)'],
  ];
  if (result.resumeFrom !== null) rows.push([ctx.out.yellow('not sent'), String(result.total - result.sent), `stopped at line ${result.resumeFrom}`]);
  let text = `\n${result.sent} of ${result.total} lines sent.\n` + formatTable(['outcome', 'lines', ''], rows, { right: [1] });
  for (const r of result.rejected) text += `  line ${r.line}: HTTP ${r.status}: ${r.reason}\n`;
  return text;
}

/** How long the replay should take, in words, from the recorded times and the pacing options. */
export function expectedDuration(lines: ReadonlyArray<{ at: number }>, options: { speed?: number; maxRate?: number }): string {
  const span = lines.length ? Math.max(...lines.map((l) => l.at)) - Math.min(...lines.map((l) => l.at)) : 0;
  const followTimes = options.speed !== undefined || options.maxRate === undefined;
  const speed = options.speed ?? 1;
  const paced = followTimes ? span / speed : 0;
  const capped = options.maxRate ? ((lines.length - 1) / options.maxRate) * 1000 : 0;
  const ms = Math.max(paced, capped);
  const how = followTimes ? `the recording spans ${words(span)}${speed === 1 ? ', replayed in real time' : ` at --speed ${speed}`}` : `at --max-rate ${options.maxRate}/s`;
  const hint = followTimes && ms > 60_000 ? '; a higher --speed (or --max-rate alone) is faster' : '';
  return `about ${words(ms)} (${how}${hint})`;
}

function words(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60 ? `${s % 60} s` : ''}`.trim();
  return `${Math.floor(s / 3600)} h ${Math.round((s % 3600) / 60)} min`;
}
