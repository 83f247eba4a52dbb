// What every command handler shares: the language client, the explain documents, the session
// of this window and the helpers that run a session and open a report. Built once by
// extension.ts; each command lives in a file of its own under cmd/ and is registered from the
// table in cmd/index.ts.
import * as vscode from 'vscode';
import { WorkDoneProgress } from 'vscode-languageclient/node';
import { AlisioClient } from '../client';
import * as ext from '../lsp_ext';
import { RunResult } from '../views/chat';
import { ContextReport } from '../views/render';
import { ReportPanel } from '../views/report';
import type { AuditSessionsView } from '../views/auditView';

export const EXPLAIN_SCHEME = 'alisio-explain';

export class Ctx implements vscode.Disposable {
  lastSession: string | undefined;
  readonly explainDocs = new Map<string, string>();
  readonly explainChanged = new vscode.EventEmitter<vscode.Uri>();
  /** The Audit Sessions view, once registered (extension.ts). */
  auditView: AuditSessionsView | undefined;

  constructor(readonly client: AlisioClient, readonly output: vscode.LogOutputChannel) {}

  dispose(): void {
    this.explainChanged.dispose();
  }

  fetchReport = (sessionId: string): Promise<ContextReport> => this.client.request(ext.contextReport, { sessionId }) as Promise<ContextReport>;

  openReport = (sessionId: string, report?: ContextReport): void => {
    this.lastSession = sessionId;
    ReportPanel.show(sessionId, this.fetchReport, report);
  };

  /** `alisio/runSession` with a work-done token whose progress shows in the status bar. */
  runSession = async (params: ext.RunSessionParams, token: vscode.CancellationToken): Promise<RunResult> => {
    const workDoneToken = `alisio-session-${Date.now()}-${Math.random().toString(36).slice(2)}`;
    // The server's work-done progress (spec/sessions.md §2.11: `<tool>`, `Turn <n>`) in the status bar.
    return vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'Agent session' }, async (bar) => {
      const progress = this.client.client?.onProgress(WorkDoneProgress.type, workDoneToken, (p) => {
        if (p.kind !== 'end' && p.message) {
          bar.report({ message: p.message });
          this.client.output.info(`session: ${p.message}`);
        }
      });
      try {
        const result = await this.client.request(ext.runSession, { ...params, workDoneToken }, token);
        if (result?.sessionId) this.lastSession = result.sessionId;
        return result;
      } finally {
        progress?.dispose();
      }
    });
  };

  /** The URI a command was invoked on: its argument, else the active editor's document. */
  activeUri(arg?: unknown): vscode.Uri | undefined {
    if (arg instanceof vscode.Uri) return arg;
    if (typeof arg === 'string') return vscode.Uri.parse(arg);
    return vscode.window.activeTextEditor?.document.uri;
  }

  failed = (what: string) => (e: unknown): void => {
    const msg = (e as Error)?.message ?? String(e);
    this.output.error(`${what}: ${msg}`);
    void vscode.window.showErrorMessage(`Alisio: ${what} failed: ${msg}`);
  };
}
