// Finding the alisio-ls binary, in the order rust-analyzer, ruff and typos-lsp use:
// 1. the debug environment variable ALISIO_LS_PATH,
// 2. the `alisio.server.path` setting,
// 3. the binary bundled in a platform-specific VSIX under server/<platform>-<arch>/,
// 4. `alisio-ls` on PATH.
// In an untrusted workspace only (3) is allowed: a workspace's settings.json could otherwise
// point the path at a program of the workspace's author (ruff does the same).
//
// Pure: every file-system and environment fact comes in through `DiscoveryInput`, so the order
// and the trust rule are unit-tested without VS Code.
import * as path from 'path';

export type ServerSource = 'env' | 'setting' | 'bundled' | 'path';

export interface DiscoveryInput {
  /** The extension host's environment (ALISIO_LS_PATH, PATH, HOME). */
  env: Record<string, string | undefined>;
  /** `alisio.server.path` as configured (null/undefined/empty: not set). */
  settingPath: string | null | undefined;
  /** `vscode.workspace.isTrusted`. */
  trusted: boolean;
  /** The extension's install directory. */
  extensionPath: string;
  /** `process.platform` and `process.arch`. */
  platform: string;
  arch: string;
  /** The first workspace folder, for a relative `alisio.server.path`. */
  workspaceFolder?: string;
  /** Whether `p` is an existing regular file. */
  isFile(p: string): boolean;
}

export type Discovery =
  | { ok: true; path: string; source: ServerSource }
  | { ok: false; error: string; tried: string[] };

export const ENV_VAR = 'ALISIO_LS_PATH';

export function binaryName(platform: string): string {
  return platform === 'win32' ? 'alisio-ls.exe' : 'alisio-ls';
}

/** server/<platform>-<arch>/alisio-ls[.exe] inside the extension (vsce target names). */
export function bundledPath(extensionPath: string, platform: string, arch: string): string {
  return path.join(extensionPath, 'server', `${platform}-${arch}`, binaryName(platform));
}

/** Expands a leading `~` (or `~/`) to the home directory. */
export function expandHome(p: string, home: string | undefined): string {
  if (home && (p === '~' || p.startsWith('~/') || p.startsWith('~\\'))) {
    return path.join(home, p.slice(1));
  }
  return p;
}

function homeOf(env: Record<string, string | undefined>): string | undefined {
  return env.HOME || env.USERPROFILE || undefined;
}

export function discoverServer(input: DiscoveryInput): Discovery {
  const tried: string[] = [];
  const bundled = bundledPath(input.extensionPath, input.platform, input.arch);
  if (!input.trusted) {
    tried.push(bundled);
    if (input.isFile(bundled)) {
      return { ok: true, path: bundled, source: 'bundled' };
    }
    return {
      ok: false,
      tried,
      error:
        'alisio-ls was not started: in an untrusted workspace only the server bundled with the extension may run, ' +
        'and this installation has none (install the platform-specific VSIX, or trust the workspace to use alisio.server.path or PATH).',
    };
  }
  const home = homeOf(input.env);
  const fromEnv = input.env[ENV_VAR];
  if (fromEnv) {
    const p = expandHome(fromEnv, home);
    tried.push(p);
    if (input.isFile(p)) {
      return { ok: true, path: p, source: 'env' };
    }
    return { ok: false, tried, error: `${ENV_VAR} is set to ${fromEnv}, which is not a file.` };
  }
  if (input.settingPath && input.settingPath.trim() !== '') {
    let p = expandHome(input.settingPath.trim(), home);
    if (!path.isAbsolute(p) && input.workspaceFolder) {
      p = path.join(input.workspaceFolder, p);
    }
    tried.push(p);
    if (input.isFile(p)) {
      return { ok: true, path: p, source: 'setting' };
    }
    return { ok: false, tried, error: `alisio.server.path is set to ${input.settingPath}, which is not a file.` };
  }
  tried.push(bundled);
  if (input.isFile(bundled)) {
    return { ok: true, path: bundled, source: 'bundled' };
  }
  const sep = input.platform === 'win32' ? ';' : ':';
  for (const dir of (input.env.PATH ?? input.env.Path ?? '').split(sep)) {
    if (!dir) {
      continue;
    }
    const p = path.join(dir, binaryName(input.platform));
    tried.push(p);
    if (input.isFile(p)) {
      return { ok: true, path: p, source: 'path' };
    }
  }
  return {
    ok: false,
    tried,
    error: 'alisio-ls was not found: set alisio.server.path, put alisio-ls on PATH, or install the platform-specific VSIX that bundles it.',
  };
}
