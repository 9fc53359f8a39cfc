/**
 * Loaded before every test file (`--import`, see .taprc): any process warning, in this process
 * or noted from a child (helpers/warnings.ts), makes the file fail with the warning printed.
 */
import { noteWarning, warningsSeen } from './warnings.js';

process.on('warning', (warning) => noteWarning(`${warning.name}: ${warning.message}\n${warning.stack ?? ''}`));
process.on('exit', () => {
  const warnings = warningsSeen();
  if (warnings.length === 0) return;
  process.stderr.write(`\nfailing: ${warnings.length} process warning(s) (the suite allows none):\n${warnings.map((w) => `  ${w}`).join('\n')}\n`);
  process.exitCode = 1;
});
