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

// ---- webview panels (the chat panel's tests): the messages posted to the webview are kept,
// and a test plays the webview by calling `receive`.
export class FakePanel {
  posted: any[] = [];
  title = '';
  private onMessage = new EventEmitter<any>();
  private onDispose = new EventEmitter<void>();
  private onView = new EventEmitter<any>();
  webview = {
    html: '',
    cspSource: 'stub:',
    postMessage: async (m: any) => {
      this.posted.push(m);
      return true;
    },
    onDidReceiveMessage: (l: Listener<any>) => this.onMessage.event(l),
  };
  onDidDispose = (l: Listener<void>) => this.onDispose.event(l);
  onDidChangeViewState = (l: Listener<any>) => this.onView.event(l);
  reveal(): void {}
  dispose(): void {
    this.onDispose.fire();
  }
  /** The webview sends a message to the extension. */
  receive(m: any): void {
    this.onMessage.fire(m);
  }
  /** The last HTML the chat rendered. */
  lastHtml(): string {
    const h = [...this.posted].reverse().find((m) => m.type === 'html');
    return h ? h.html : '';
  }
}

export const panels: FakePanel[] = [];
/** Answers of showWarningMessage / showInformationMessage, in order (undefined: dismissed). */
export const dialogs: { asked: { message: string; items: string[]; modal: boolean }[]; answers: (string | undefined)[] } = { asked: [], answers: [] };

export const window = {
  createWebviewPanel(): FakePanel {
    const p = new FakePanel();
    panels.push(p);
    return p;
  },
  async showWarningMessage(message: string, ...rest: any[]): Promise<string | undefined> {
    const opts = typeof rest[0] === 'object' && rest[0] !== null ? rest.shift() : {};
    dialogs.asked.push({ message, items: rest, modal: !!opts.modal });
    return dialogs.answers.shift();
  },
  async showInformationMessage(message: string, ...rest: any[]): Promise<string | undefined> {
    dialogs.asked.push({ message, items: rest, modal: false });
    return undefined;
  },
  async showErrorMessage(message: string, ...rest: any[]): Promise<string | undefined> {
    dialogs.asked.push({ message, items: rest, modal: false });
    return undefined;
  },
};

export const ViewColumn = { Beside: -2, Active: -1, One: 1 };

export class CancellationTokenSource {
  private emitter = new EventEmitter<void>();
  token = { isCancellationRequested: false, onCancellationRequested: (l: Listener<void>) => this.emitter.event(l) };
  cancel(): void {
    this.token.isCancellationRequested = true;
    this.emitter.fire();
  }
  dispose(): void {}
}
