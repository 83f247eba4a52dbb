// Copies the alisio-ls binary into server/<platform>-<arch>/ for the platform-specific VSIX.
// Source: $ALISIO_LS_BIN, else target/release/alisio-ls, else target/debug/alisio-ls.
import { chmodSync, copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const repo = resolve(root, '..', '..');
const exe = process.platform === 'win32' ? 'alisio-ls.exe' : 'alisio-ls';
const target = process.env.CARGO_TARGET_DIR ? resolve(process.env.CARGO_TARGET_DIR) : join(repo, 'target');
const candidates = [process.env.ALISIO_LS_BIN, join(target, 'release', exe), join(target, 'debug', exe)].filter(Boolean);
const from = candidates.find((p) => existsSync(p));
if (!from) {
  console.error(`no alisio-ls binary: build it (cargo build --release) or set ALISIO_LS_BIN; tried ${candidates.join(', ')}`);
  process.exit(1);
}
const dir = join(root, 'server', `${process.platform}-${process.arch}`);
mkdirSync(dir, { recursive: true });
copyFileSync(from, join(dir, exe));
chmodSync(join(dir, exe), 0o755);
console.log(`bundled ${from} -> server/${process.platform}-${process.arch}/${exe}`);
