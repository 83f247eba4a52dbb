// The language client: finds the server (discovery.ts), starts it with the initialization
// options of settings.ts, reports its state (the status bar item is statusBar.ts), logs to one output channel,
// restarts on demand, and bridges the custom methods of spec/interfaces.md §3.1.
import * as fs from 'fs';
import * as vscode from 'vscode';
import {
  CancellationToken,
  DocumentSelector,
  Executable,
  LanguageClient,
  LanguageClientOptions,
  RequestType,
  RevealOutputChannelOn,
  State,
} from 'vscode-languageclient/node';
import { rewriteLensCommand } from './commands';
import { Discovery, discoverServer } from './discovery';
import { InitOptions } from './settings';
import { ServerControl, SettingsSync } from './sync';
import * as ext from './lsp_ext';
import { ApproveParams, ApproveResult, SessionEvent } from './lsp_ext';

/** Every file on disk: the server lints instruction files, SKILL.md and `.alisio/config.json`,
 * and gives any other file a hover on line 0 saying which instructions apply (and, with
 * `codeLens.instructionsOnEveryFile`, a lens) (spec/interfaces.md §3, spec/instructions.md §6). SKILL.md
 * and the instruction names are also listed by pattern because recent VS Code gives SKILL.md a
 * language of its own (`skill`); the patterns document the intent and keep working if the first
 * entry is ever narrowed. */
export const DOCUMENT_SELECTOR: DocumentSelector = [
  { scheme: 'file' },
  { scheme: 'untitled', language: 'markdown' },
  { scheme: 'file', pattern: '**/SKILL.md' },
  { scheme: 'file', pattern: '**/{AGENTS.md,AGENTS.override.md,AGENT.md,CLAUDE.md,CLAUDE.local.md}' },
  { scheme: 'file', pattern: '**/.alisio/config.json' },
];

export type ServerState = 'starting' | 'running' | 'stopped' | 'error';
export interface ServerStatus {
  state: ServerState;
  trusted: boolean;
  path?: string;
  detail?: string;
}

export type Approver = (params: ApproveParams, token: CancellationToken) => Promise<ApproveResult>;

export class AlisioClient implements ServerControl, vscode.Disposable {
  client: LanguageClient | undefined;
  private serverPath: string | undefined;
  private readonly statusEvents = new vscode.EventEmitter<ServerStatus>();
  /** The server's state, for the status bar (statusBar.ts). */
  readonly onDidChangeStatus = this.statusEvents.event;
  status: ServerStatus = { state: 'stopped', trusted: false };
  private readonly events = new vscode.EventEmitter<{ sessionId: string; event: SessionEvent }>();
  readonly onSessionEvent = this.events.event;
  approver: Approver | undefined;
  private starting: Promise<void> | undefined;

  constructor(
    private readonly context: vscode.ExtensionContext,
    readonly output: vscode.LogOutputChannel,
  ) {
    this.setStatus('stopped');
  }

  discover(trusted: boolean): Discovery {
    const cfg = vscode.workspace.getConfiguration('alisio');
    return discoverServer({
      env: process.env,
      settingPath: cfg.get<string | null>('server.path'),
      trusted,
      extensionPath: this.context.extensionPath,
      platform: process.platform,
      arch: process.arch,
      workspaceFolder: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
      isFile: (p) => {
        try {
          return fs.statSync(p).isFile();
        } catch {
          return false;
        }
      },
    });
  }

  runningPath(): string | undefined {
    return this.client?.isRunning() ? this.serverPath : undefined;
  }

  log(message: string): void {
    this.output.info(message);
  }

  private setStatus(state: ServerState, detail?: string): void {
    this.status = { state, trusted: vscode.workspace.isTrusted, path: this.serverPath, detail };
    this.statusEvents.fire(this.status);
  }

  async start(): Promise<void> {
    if (this.starting) return this.starting;
    this.starting = this.doStart().finally(() => (this.starting = undefined));
    return this.starting;
  }

  private async doStart(): Promise<void> {
    const trusted = vscode.workspace.isTrusted;
    const found = this.discover(trusted);
    if (!found.ok) {
      this.serverPath = undefined;
      this.output.error(`${found.error} Tried: ${found.tried.join(', ') || '(nothing)'}`);
      this.setStatus('error', found.error);
      void vscode.window.showErrorMessage(found.error, 'Open Settings', 'Show Output').then((pick) => {
        if (pick === 'Open Settings') void vscode.commands.executeCommand('workbench.action.openSettings', 'alisio.server.path');
        if (pick === 'Show Output') this.output.show();
      });
      return;
    }
    this.serverPath = found.path;
    const options: InitOptions = SettingsSync.options();
    this.output.info(`starting ${found.path} (${found.source}); trusted: ${trusted}`);
    const server: Executable = { command: found.path, args: ['serve', '--stdio'], options: { env: { ...process.env } } };
    const clientOptions: LanguageClientOptions = {
      documentSelector: DOCUMENT_SELECTOR,
      initializationOptions: options,
      outputChannel: this.output,
      traceOutputChannel: this.output,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      middleware: {
        provideCodeLenses: async (document, token, next) => {
          const lenses = await next(document, token);
          return lenses?.map((l: vscode.CodeLens) => {
            l.command = rewriteLensCommand(l.command);
            return l;
          });
        },
        resolveCodeLens: async (lens, token, next) => {
          const r = await next(lens, token);
          if (r) r.command = rewriteLensCommand(r.command);
          return r;
        },
      },
    };
    const client = new LanguageClient('alisio', 'Alisio', server, clientOptions);
    client.onDidChangeState((e) => {
      if (e.newState === State.Running) this.setStatus('running');
      else if (e.newState === State.Starting) this.setStatus('starting');
      else this.setStatus('stopped');
    });
    client.onNotification(ext.sessionEvent, (params) => {
      if (params && params.event) this.events.fire(params);
    });
    client.onRequest(ext.approve, async (params, token) => {
      const reply: ApproveResult = this.approver ? await this.approver(params, token) : { decision: 'deny' };
      return reply;
    });
    this.client = client;
    this.setStatus('starting');
    try {
      await client.start();
      this.setStatus('running');
    } catch (e) {
      this.output.error(`the server did not start: ${(e as Error)?.message ?? e}`);
      this.setStatus('error', String((e as Error)?.message ?? e));
    }
  }

  async stop(): Promise<void> {
    const c = this.client;
    this.client = undefined;
    if (c) {
      try {
        await c.stop(5000);
      } catch (e) {
        this.output.warn(`stopping the server: ${(e as Error)?.message ?? e}`);
      }
    }
    this.setStatus('stopped');
  }

  async restart(reason: string): Promise<void> {
    this.output.info(`restart: ${reason}`);
    await this.stop();
    await this.start();
  }

  sendConfiguration(params: { settings: { alisio: InitOptions } }): void {
    if (this.client?.isRunning()) {
      void this.client.sendNotification('workspace/didChangeConfiguration', params);
    }
  }

  /** A request to the running server (started on demand). */
  async request<P, R>(type: RequestType<P, R, void>, params: P, token?: CancellationToken): Promise<R> {
    if (!this.client?.isRunning()) {
      await this.start();
    }
    const c = this.client;
    if (!c?.isRunning()) {
      throw new Error('alisio-ls is not running (see the Alisio output)');
    }
    const p = params as any;
    return token ? c.sendRequest(type, p, token) : c.sendRequest(type, p);
  }

  dispose(): void {
    void this.stop();
    this.statusEvents.dispose();
    this.events.dispose();
  }
}
