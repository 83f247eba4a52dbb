// Keeps the running server in step with workspace trust and the `alisio.*` settings:
// - trust granted: the server learns `trusted: true` through didChangeConfiguration, or is
//   restarted when trust changes which binary may run (untrusted workspaces run only the
//   bundled binary, discovery.ts);
// - `alisio.server.path` changed: restart;
// - any other `alisio.*` setting changed: didChangeConfiguration with the full options.
import * as vscode from 'vscode';
import { Discovery } from './discovery';
import { didChangeConfigurationParams, initializationOptions, InitOptions, RESTART_KEYS, SECTION } from './settings';

/** What this module needs from the client manager (client.ts). */
export interface ServerControl {
  /** The binary of the running server, undefined when none runs. */
  runningPath(): string | undefined;
  restart(reason: string): Promise<void>;
  sendConfiguration(params: { settings: { alisio: InitOptions } }): void;
  log(message: string): void;
}

export class SettingsSync implements vscode.Disposable {
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(
    private readonly control: ServerControl,
    private readonly discover: (trusted: boolean) => Discovery,
  ) {
    this.subscriptions.push(
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.trustGranted()),
      vscode.workspace.onDidChangeConfiguration((e) => this.configurationChanged(e)),
    );
  }

  static trusted(): boolean {
    return vscode.workspace.isTrusted;
  }

  /** The initialization options for a server started now. */
  static options(): InitOptions {
    return initializationOptions(vscode.workspace.getConfiguration(SECTION), SettingsSync.trusted());
  }

  async trustGranted(): Promise<void> {
    const found = this.discover(true);
    const running = this.control.runningPath();
    if (!running || (found.ok && found.path !== running)) {
      this.control.log(`workspace trusted: restarting the server${found.ok ? ` (${found.path})` : ''}`);
      await this.control.restart('workspace trusted');
      return;
    }
    this.control.log('workspace trusted: sending trusted = true');
    this.control.sendConfiguration(didChangeConfigurationParams(SettingsSync.options()));
  }

  async configurationChanged(e: vscode.ConfigurationChangeEvent): Promise<void> {
    if (RESTART_KEYS.some((k) => e.affectsConfiguration(k))) {
      this.control.log('alisio.server.path changed: restarting the server');
      await this.control.restart('settings changed');
      return;
    }
    if (e.affectsConfiguration(SECTION)) {
      this.control.sendConfiguration(didChangeConfigurationParams(SettingsSync.options()));
    }
  }

  dispose(): void {
    for (const s of this.subscriptions) {
      s.dispose();
    }
  }
}
