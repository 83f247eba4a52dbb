// A stand-in for the `vscode` module in plain-Node unit tests (scripts/build.mjs --tests
// resolves `vscode` here). It models only what the tested modules use: configuration values,
// workspace trust and its grant event, configuration-change events.

type Listener<T> = (e: T) => unknown;

export class EventEmitter<T> {
  private listeners: Listener<T>[] = [];
  event = (l: Listener<T>) => {
    this.listeners.push(l);
    return { dispose: () => (this.listeners = this.listeners.filter((x) => x !== l)) };
  };
  fire(e: T): void {
    for (const l of [...this.listeners]) l(e);
  }
  dispose(): void {
    this.listeners = [];
  }
}

/** Test state: flat `alisio.*` settings, the trust flag, and the events tests fire. */
export const state = {
  settings: {} as Record<string, unknown>,
  trusted: false,
  grant: new EventEmitter<void>(),
  configChange: new EventEmitter<{ affectsConfiguration(section: string): boolean }>(),
};

export function reset(): void {
  state.settings = {};
  state.trusted = false;
  state.grant = new EventEmitter<void>();
  state.configChange = new EventEmitter();
}

export const workspace = {
  get isTrusted() {
    return state.trusted;
  },
  getConfiguration(section?: string) {
    const prefix = section ? section + '.' : '';
    return {
      get<T>(key: string, dflt?: T): T | undefined {
        const v = state.settings[prefix + key];
        return (v === undefined ? dflt : v) as T | undefined;
      },
    };
  },
  onDidGrantWorkspaceTrust: (l: Listener<void>) => state.grant.event(l),
  onDidChangeConfiguration: (l: Listener<{ affectsConfiguration(section: string): boolean }>) => state.configChange.event(l),
  workspaceFolders: undefined,
};

/** A configuration-change event for the given changed keys (prefix semantics like VS Code). */
export function changed(...keys: string[]) {
  return {
    affectsConfiguration(section: string) {
      return keys.some((k) => k === section || k.startsWith(section + '.'));
    },
  };
}
