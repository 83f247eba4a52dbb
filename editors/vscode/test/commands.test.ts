import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Commands } from '../src/commands';

const root = join(__dirname, '..', '..');

test('every contributed command has a handler in the command table, and the table names no other', () => {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const contributed = (pkg.contributes.commands as { command: string }[]).map((c) => c.command).sort();
  assert.deepEqual(Object.values(Commands).sort(), contributed);
  const table = readFileSync(join(root, 'src', 'cmd', 'index.ts'), 'utf8');
  const keys = [...table.matchAll(/\[Commands\.(\w+)\]:/g)].map((m) => (Commands as Record<string, string>)[m[1]]).sort();
  assert.deepEqual(keys, contributed);
  // Menus only name contributed commands.
  for (const [menu, items] of Object.entries(pkg.contributes.menus as Record<string, { command: string }[]>)) {
    for (const i of items) assert.ok(contributed.includes(i.command), `${menu}: ${i.command}`);
  }
});
