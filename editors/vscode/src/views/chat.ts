// The agent chat panel: a prompt box, the streamed answer, tool calls, approval buttons that
// answer the server's `alisio/approve` request, a cancel button ($/cancelRequest on the
// `alisio/runSession` request) and a link to the session's Context Report.
import * as vscode from 'vscode';
import { ApproveParams, ChatModel, Decision, renderChatHtml, SessionEvent } from './chatModel';
import { ContextReport } from './render';
import { webviewHtml } from './webview';

export interface RunResult {
  sessionId: string;
  status: 'completed' | 'failed' | 'cancelled';
  text: string;
  report?: ContextReport;
}

export interface ChatBackend {
  runSession(params: { prompt: string; sessionId?: string }, token: vscode.CancellationToken): Promise<RunResult>;
  openReport(sessionId: string, report?: ContextReport): void;
  /** Re-opens the diff editor of a pending approval's preview. */
  showDiff?(callId: string): void;
}

export class ChatPanel {
  static readonly viewType = 'alisio.chat';
  private static panels = new Set<ChatPanel>();
  readonly model = new ChatModel();
  private ready = false;
  private cancel: vscode.CancellationTokenSource | undefined;
  private waiting = new Map<string, (d: Decision) => void>();
  private disposed = false;

  private constructor(private readonly panel: vscode.WebviewPanel, private readonly backend: ChatBackend) {
    panel.webview.html = webviewHtml(panel.webview, 'Alisio Agent', '', true);
    panel.webview.onDidReceiveMessage((m) => this.onMessage(m));
    panel.onDidDispose(() => {
      this.disposed = true;
      ChatPanel.panels.delete(this);
      this.cancel?.cancel();
      for (const resolve of this.waiting.values()) resolve('deny');
      this.waiting.clear();
    });
  }

  static open(backend: ChatBackend): ChatPanel {
    const panel = vscode.window.createWebviewPanel(ChatPanel.viewType, 'Alisio Agent', vscode.ViewColumn.Beside, {
      enableScripts: true,
      retainContextWhenHidden: true,
      localResourceRoots: [],
    });
    const p = new ChatPanel(panel, backend);
    ChatPanel.panels.add(p);
    return p;
  }

  /** Routes a session event to the chat that owns it. */
  static onEvent(sessionId: string, ev: SessionEvent): void {
    for (const p of ChatPanel.panels) {
      if (p.model.owns(ev, sessionId)) {
        p.model.apply(ev);
        p.render(true);
        return;
      }
    }
  }

  /** The `alisio/approve` request: asked in the owning chat; undefined when no chat owns it. */
  static ask(params: ApproveParams, token: vscode.CancellationToken): Promise<Decision> | undefined {
    for (const p of ChatPanel.panels) {
      if (p.model.sessionId === params.sessionId || (!p.model.sessionId && p.model.running)) {
        return p.ask(params, token);
      }
    }
    return undefined;
  }

  /** An approval answered elsewhere (the diff editor): the chat shows the decision. */
  static settle(callId: string, decision: Decision): void {
    for (const p of ChatPanel.panels) {
      const resolve = p.waiting.get(callId);
      if (resolve) {
        p.waiting.delete(callId);
        p.model.answer(callId, decision);
        p.render(false);
        resolve(decision);
      }
    }
  }

  private ask(params: ApproveParams, token: vscode.CancellationToken): Promise<Decision> {
    this.model.request(params);
    this.render(true);
    this.panel.reveal(undefined, false);
    return new Promise<Decision>((resolve) => {
      this.waiting.set(params.callId, resolve);
      token.onCancellationRequested(() => {
        // withdrawn by the server (run cancelled): not a user decision
        this.waiting.delete(params.callId);
        const item = this.model.approval(params.callId);
        if (item && !item.decision) {
          item.decision = 'withdrawn';
        }
        this.render(false);
        resolve('deny');
      });
    });
  }

  private onMessage(m: any): void {
    switch (m?.type) {
      case 'ready':
        this.ready = true;
        this.render(true);
        break;
      case 'send':
        void this.send(String(m.prompt ?? ''));
        break;
      case 'cancel':
        this.cancel?.cancel();
        break;
      case 'approve': {
        const decision = m.decision as Decision;
        if (!['allow-once', 'allow-session', 'deny'].includes(decision)) return;
        const resolve = this.waiting.get(m.callId);
        this.model.answer(m.callId, decision);
        this.render(false);
        if (resolve) {
          this.waiting.delete(m.callId);
          resolve(decision);
        }
        break;
      }
      case 'report':
        if (m.sessionId) this.backend.openReport(m.sessionId);
        break;
      case 'diff':
        if (typeof m.callId === 'string') this.backend.showDiff?.(m.callId);
        break;
    }
  }

  async send(prompt: string): Promise<void> {
    if (!prompt.trim() || this.model.running) {
      return;
    }
    this.model.addUser(prompt);
    this.render(true);
    this.cancel = new vscode.CancellationTokenSource();
    try {
      const result = await this.backend.runSession({ prompt, sessionId: this.model.sessionId }, this.cancel.token);
      this.model.finish(result);
      if (result?.sessionId) {
        this.panel.title = `Alisio Agent · ${result.sessionId}`;
      }
      if (result?.report && result.sessionId) {
        this.backend.openReport(result.sessionId, result.report);
      }
    } catch (e) {
      const err = e as { code?: number; message?: string };
      this.model.finish(undefined, err?.code === -32800 ? 'Cancelled' : `Error: ${err?.message ?? String(e)}`);
    } finally {
      this.cancel.dispose();
      this.cancel = undefined;
      this.render(true);
    }
  }

  private render(scroll: boolean): void {
    if (!this.ready || this.disposed) return;
    void this.panel.webview.postMessage({ type: 'html', html: renderChatHtml(this.model), scroll });
    void this.panel.webview.postMessage({ type: 'running', running: this.model.running });
  }
}
