/**
 * A closed pipe (`fieldops status | head -4`: head exits after four lines) is not an error of
 * ours: stop quietly, as Unix tools do, with the exit code the command had so far. Any other
 * stream error is rethrown, a bug as before.
 */
export function endQuietlyOnClosedPipe(stream: NodeJS.WritableStream): void {
  // Only real process streams: tests pass in-memory streams that never close under us.
  if (stream !== process.stdout && stream !== process.stderr) return;
  // NOTE: prepended, and never rethrown from here when another listener (a coverage hook under
  // test) already handles the stream's errors.
  stream.prependListener('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
    if (stream.listenerCount('error') === 1) throw error;
  });
}
