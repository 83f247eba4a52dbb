// VS Code settings (`alisio.*`) → the initialization options of spec/interfaces.md §3, also sent
// as `workspace/didChangeConfiguration` `{settings: {alisio: …}}`. Settings left empty (null)
// are omitted, so the configuration files (user, then project when trusted) decide; the full
// object is sent on every change, so clearing a setting hands the key back to those files.
// Values are passed through unvalidated: the server owns validation and answers an invalid
// value with a warning naming the value it uses instead (spec/instructions.md §2.10).

/** The part of vscode.WorkspaceConfiguration this module reads. */
export interface SettingsReader {
  get<T>(key: string): T | undefined;
}

export interface ProviderOptions {
  kind?: string;
  baseUrl?: string;
  model?: string;
  apiKeyEnv?: string;
}

export interface InitOptions {
  trusted: boolean;
  host?: string;
  profile?: string;
  context?: {
    claudeMdFallback?: boolean;
    maxBytes?: number;
    governor?: string;
    elide?: { minAgeTurns?: number; epochMessages?: number };
    invariants?: { maxChars?: number };
  };
  codeLens?: { instructionsOnEveryFile?: boolean };
  audit?: { enabled?: boolean; sessions?: number };
  watcher?: string;
  provider?: ProviderOptions;
}

/** The settings section, for getConfiguration and didChangeConfiguration. */
export const SECTION = 'alisio';

/** Settings whose change needs a new server process rather than didChangeConfiguration. */
export const RESTART_KEYS = ['alisio.server.path'];

function present(v: unknown): boolean {
  return v !== undefined && v !== null && v !== '';
}

/** Copies the present values of `keys` from the reader into a new object, or undefined when none. */
function pick(cfg: SettingsReader, prefix: string, keys: string[]): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  for (const k of keys) {
    const v = cfg.get<unknown>(prefix + k);
    if (present(v)) {
      out[k] = v;
    }
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

export function initializationOptions(cfg: SettingsReader, trusted: boolean): InitOptions {
  const opts: InitOptions = { trusted };
  const host = cfg.get<string>('host');
  if (present(host)) {
    opts.host = host;
  }
  const profile = cfg.get<string>('profile');
  if (present(profile)) {
    opts.profile = profile;
  }
  const context: NonNullable<InitOptions['context']> = {};
  Object.assign(context, pick(cfg, 'context.', ['claudeMdFallback', 'maxBytes', 'governor']));
  const elide = pick(cfg, 'context.elide.', ['minAgeTurns', 'epochMessages']);
  if (elide) {
    context.elide = elide;
  }
  const invariants = pick(cfg, 'context.invariants.', ['maxChars']);
  if (invariants) {
    context.invariants = invariants;
  }
  if (Object.keys(context).length > 0) {
    opts.context = context;
  }
  const lens = pick(cfg, 'codeLens.', ['instructionsOnEveryFile']);
  if (lens) {
    opts.codeLens = lens;
  }
  const audit = pick(cfg, 'audit.', ['enabled', 'sessions']);
  if (audit) {
    opts.audit = audit;
  }
  const watcher = cfg.get<string>('watcher');
  if (present(watcher)) {
    opts.watcher = watcher;
  }
  const provider = pick(cfg, 'provider.', ['kind', 'baseUrl', 'model', 'apiKeyEnv']);
  if (provider) {
    opts.provider = provider;
  }
  return opts;
}

/** The payload of workspace/didChangeConfiguration. */
export function didChangeConfigurationParams(opts: InitOptions): { settings: { alisio: InitOptions } } {
  return { settings: { [SECTION]: opts } as { alisio: InitOptions } };
}
