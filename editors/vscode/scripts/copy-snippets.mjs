// Copies the repository's snippets (../../server/snippets, VS Code snippet format) into the
// extension so that vsce packages them; package.json's `contributes.snippets` points here.
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const from = resolve(root, '..', '..', 'server', 'snippets');
const to = join(root, 'snippets');
mkdirSync(to, { recursive: true });
for (const f of readdirSync(from).filter((f) => f.endsWith('.code-snippets'))) {
  copyFileSync(join(from, f), join(to, f));
  console.log(`snippets/${f}`);
}
