/**
 * A closed pipe (`fieldops status | head -4`: head exits after four lines) is not an error of
 * ours: stop quietly, as Unix tools do, with the exit code the command had so far. Any other
 * stream error is rethrown, a bug as before.
 */
export function endQuietlyOnClosedPipe(stream: NodeJS.WritableStream): void {
  // Only real process streams: tests pass in-memory streams that never close under us.
  if (stream !== process.stdout && stream !== process.stderr) return;
  if (stream.listenerCount('error') > 0) return;
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
    throw error;
  });
}
