// Bundles the extension with esbuild (dist/extension.js, `vscode` external), or, with
// --tests, each test/*.test.ts into out/test/ with `vscode` resolved to test/vscode-stub.ts.
import * as esbuild from 'esbuild';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = new Set(process.argv.slice(2));

// `import x from './file?text'`: the file's content as a string (the replay chart's code and
// uPlot, shared with `governor analyze --html`, src/views/chartAssets.ts).
const textImports = {
  name: 'text-imports',
  setup(build) {
    build.onResolve({ filter: /\?text$/ }, (a) => ({ path: resolve(a.resolveDir, a.path.slice(0, -'?text'.length)), namespace: 'text' }));
    build.onLoad({ filter: /.*/, namespace: 'text' }, (a) => ({ contents: readFileSync(a.path, 'utf8'), loader: 'text' }));
  },
};

if (args.has('--tests')) {
  const stub = join(root, 'test', 'vscode-stub.ts');
  const vscodeStub = {
    name: 'vscode-stub',
    setup(build) {
      build.onResolve({ filter: /^vscode$/ }, () => ({ path: stub }));
    },
  };
  const entries = readdirSync(join(root, 'test')).filter((f) => f.endsWith('.test.ts')).map((f) => join(root, 'test', f));
  await esbuild.build({
    entryPoints: entries,
    outdir: join(root, 'out', 'test'),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    sourcemap: 'inline',
    plugins: [vscodeStub, textImports],
    logLevel: 'warning',
  });
} else {
  const options = {
    entryPoints: [join(root, 'src', 'extension.ts')],
    outfile: join(root, 'dist', 'extension.js'),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
    plugins: [textImports],
    sourcemap: args.has('--watch') ? 'inline' : false,
    minify: !args.has('--watch'),
    logLevel: 'info',
  };
  if (args.has('--watch')) {
    const ctx = await esbuild.context(options);
    await ctx.watch();
  } else {
    await esbuild.build(options);
  }
}
