/** What `--help` promises: every client command, and the exit codes. */
import t from 'tap';
import { cliEnv } from '../helpers/cli-env.js';

t.test('--help lists the client commands and the exit codes', async (t) => {
  const cli = cliEnv(t);
  const help = await cli.run(['--help']);
  t.equal(help.code, 0);
  for (const command of ['login', 'logout', 'whoami', 'sync', 'status', 'types', 'trackedby', 'lint', 'migrate', 'replay']) {
    t.match(help.stdout, new RegExp(`\\n  ${command}\\b`), command);
  }
  t.match(help.stdout, /Exit codes:\n  0  success\n  1  failure .*\n  2  usage error/);
  const lint = await cli.run(['lint', '--help']);
  t.match(lint.stdout, /--format <format>[\s\S]*choices: "stylish",\s+"json",\s+"sarif",\s+"junit",\s+"github"/);
  t.match(lint.stdout, /Exit codes: 0 no errors/);
  t.match((await cli.run(['replay', '--help'])).stdout, /Safe to re-run/);
  t.match((await cli.run(['sync', '--help'])).stdout, /one 304 per resource/);
  const unknown = await cli.run(['synk']);
  t.equal(unknown.code, 2, 'unknown command: usage error');
  t.match(unknown.stderr, /unknown command 'synk'[\s\S]*Did you mean sync\?/);
  t.equal((await cli.run(['types', 'list', '--kind', 'plane'])).code, 2, 'a bad choice: usage error');
});
