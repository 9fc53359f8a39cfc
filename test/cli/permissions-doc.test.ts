/**
 * `fieldops admin grant --help` sends the reader to the README for the permission codenames: its
 * "Permissions" table must list every codename the server knows (server/domain/permissions.ts),
 * in the same order, and nothing else.
 */
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { PERMISSIONS } from '../../server/domain/permissions.js';
import { repoRoot } from '../helpers/cli.js';
import { cliEnv } from '../helpers/cli-env.js';

t.test("the README's permission table lists every permission, one row each", async (t) => {
  const readme = fs.readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
  const section = /^## Permissions\n([\s\S]*?)(?=^## )/m.exec(readme)?.[1];
  t.ok(section, 'the README has a Permissions section');
  const listed = [...(section ?? '').matchAll(/^\| `([a-z_]+)` \| \S.*\|$/gm)].map((match) => match[1]);
  t.same(listed, [...PERMISSIONS], 'every codename, in the order of permissions.ts');
});

t.test('admin grant --help lists the codenames and points at the README for what each allows', async (t) => {
  const help = await cliEnv(t).run(['admin', 'grant', '--help']);
  t.equal(help.code, 0);
  t.match(help.stdout, /README's\s+"Permissions"\s+table/);
  const listed = /Codenames:\n([\s\S]*)$/.exec(help.stdout)?.[1]?.split(/[\s,]+/).filter(Boolean);
  t.same(listed, [...PERMISSIONS], 'every codename, in order');
});
