// The agent chat panel: a prompt box, the streamed answer, tool calls, approval buttons that
// answer the server's `alisio/approve` request, a cancel button ($/cancelRequest on the
// `alisio/runSession` request) and a link to the session's Context Report.
import * as vscode from 'vscode';
import type { Attachment, Change, CheckpointInfo, RewindParams, RewindResult, SessionSummary, Transcript } from '../lsp_ext';
import { ApproveParams, ChatModel, Decision, PendingAttachment, renderChatHtml, renderChipsHtml, rewindSummary, SessionEvent, SessionMode } from './chatModel';
import { ContextReport } from './render';
import { attachmentBlock, estimateTokens } from './chatModel';
import { webviewHtml } from './webview';

export interface RunResult {
  sessionId: string;
  status: 'completed' | 'failed' | 'cancelled';
  text: string;
  report?: ContextReport;
}

export interface ChatBackend {
  runSession(params: { prompt: string; sessionId?: string; attachments?: Attachment[]; mode?: SessionMode }, token: vscode.CancellationToken): Promise<RunResult>;
  listSessions?(): Promise<SessionSummary[]>;
  transcript?(sessionId: string): Promise<Transcript>;
  /** Workspace-relative paths matching an `@` query, for the prompt box. */
  complete?(query: string): Promise<string[]>;
  /** The URI of an `@path` written in a prompt, when it names a file of the workspace. */
  mention?(path: string): Promise<string | undefined>;
  copy?(text: string): void;
  insert?(text: string): void;
  openReport(sessionId: string, report?: ContextReport): void;
  /** Re-opens the diff editor of a pending approval's preview. */
  showDiff?(callId: string): void;
  // The Changes view and checkpoints (spec/sessions.md §13.3, §13.4).
  changes?(sessionId: string): Promise<Change[]>;
  keep?(sessionId: string, paths?: string[]): Promise<unknown>;
  undo?(sessionId: string, path: string, hunks?: boolean[]): Promise<unknown>;
  checkpoints?(sessionId: string): Promise<CheckpointInfo[]>;
  rewind?(params: RewindParams): Promise<RewindResult>;
  /** A modal question; the chosen item, or undefined when dismissed. */
  confirm?(message: string, items: string[]): Promise<string | undefined>;
  /** A change's diff: its baseline against the file as it is. */
  showChange?(change: Change): void;
  /** The text an attachment carries now (unsaved edits count), for the chips' cost. */
  attachmentText?(a: PendingAttachment): Promise<string | undefined>;
  /** Every open text editor of the workspace, as attachments ("Attach All Open Editors"). */
  openEditors?(): PendingAttachment[];
  /** The file of the text editor used last, as an attachment ("Add Active File"). */
  activeFile?(): PendingAttachment | undefined;
}

/** The tokens a chip adds: its attachment block as the server builds it (spec/sessions.md §4.6). */
export function chipTokens(a: PendingAttachment, text: string): number {
  const path = a.range ? a.label.replace(/:\d+-\d+$/, '') : a.label;
  const lines = a.range ? selectedLines(text, a.range) : undefined;
  return estimateTokens(attachmentBlock(path, lines ? lines.text : text, lines ? [lines.first, lines.last] : undefined));
}

/** The whole lines of an LSP range (an end at character 0 of a later line stops before it). */
export function selectedLines(text: string, range: NonNullable<Attachment['range']>): { text: string; first: number; last: number } {
  const all = text.split('\n');
  const end = range.end.character === 0 && range.end.line > range.start.line ? range.end.line - 1 : range.end.line;
  const last = Math.min(end, all.length - 1);
  const picked = all.slice(range.start.line, last + 1).join('\n');
  return { text: last < all.length - 1 ? picked + '\n' : picked, first: range.start.line + 1, last: end + 1 };
}

export class ChatPanel {
  static readonly viewType = 'alisio.chat';
  private static panels = new Set<ChatPanel>();
  readonly model = new ChatModel();
  private ready = false;
  private cancel: vscode.CancellationTokenSource | undefined;
  private waiting = new Map<string, (d: Decision) => void>();
  private disposed = false;
  /** Attachments for the next prompt ("Add file / selection to chat"). */
  pending: PendingAttachment[] = [];
  private static lastActive: ChatPanel | undefined;

  private constructor(private readonly panel: vscode.WebviewPanel, private readonly backend: ChatBackend) {
    panel.webview.html = webviewHtml(panel.webview, 'Alisio Agent', '', true);
    panel.webview.onDidReceiveMessage((m) => this.onMessage(m));
    panel.onDidChangeViewState((e) => {
      if (e.webviewPanel.active) ChatPanel.lastActive = this;
    });
    panel.onDidDispose(() => {
      this.disposed = true;
      ChatPanel.panels.delete(this);
      if (ChatPanel.lastActive === this) ChatPanel.lastActive = undefined;
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
    ChatPanel.lastActive = p;
    void p.showSessions();
    return p;
  }

  /** The chat the user worked in last, else a new one. */
  static current(backend: ChatBackend): ChatPanel {
    const p = ChatPanel.lastActive && !ChatPanel.lastActive.disposed ? ChatPanel.lastActive : ChatPanel.open(backend);
    p.panel.reveal(undefined, false);
    return p;
  }

  /** Adds an attachment for the next prompt (the same file and range only once). */
  attach(a: PendingAttachment): void {
    const key = (x: PendingAttachment) => `${x.uri}#${JSON.stringify(x.range ?? null)}`;
    if (!this.pending.some((x) => key(x) === key(a))) this.pending.push(a);
    this.renderAttachments();
  }

  /** Lists the workspace's earlier sessions in the chat. */
  async showSessions(): Promise<void> {
    if (!this.backend.listSessions) return;
    try {
      this.model.sessions = await this.backend.listSessions();
    } catch {
      this.model.sessions = [];
    }
    this.render(false);
  }

  /** Opens an earlier session: its transcript; the next prompt continues it. */
  async openSession(sessionId: string): Promise<void> {
    if (!this.backend.transcript || this.model.running) return;
    const t = await this.backend.transcript(sessionId);
    this.model.load(sessionId, t);
    this.panel.title = `Alisio Agent · ${t.session?.title || sessionId}`;
    this.render(true);
    await Promise.all([this.refreshChanges(), this.refreshCheckpoints()]);
  }

  /** Routes a session event to the chat that owns it. */
  static onEvent(sessionId: string, ev: SessionEvent): void {
    // Two chats may show the same session (one resumed it): the one running it gets the events.
    const owners = [...ChatPanel.panels].filter((p) => p.model.owns(ev, sessionId));
    const p = owners.find((o) => o.model.running) ?? owners[0];
    if (p) {
      p.model.apply(ev);
      p.render(true);
      // a call may have changed files: the Changes view follows the session while it runs
      if (ev.type === 'tool_completed' && !ev.parentSessionId) void p.refreshChanges();
    }
  }

  /** Re-reads the session's changes (alisio/sessionChanges). */
  async refreshChanges(): Promise<void> {
    const sid = this.model.sessionId;
    if (!sid || !this.backend.changes) return;
    const before = JSON.stringify(this.model.changes ?? null);
    try {
      this.model.changes = await this.backend.changes(sid);
    } catch {
      this.model.changes = undefined;
    }
    // drawn again only when something changed (a redraw replaces the chat's DOM)
    if (JSON.stringify(this.model.changes ?? null) !== before) this.render(false);
  }

  /** Re-reads the checkpoints and puts "Rewind to here" on their messages. */
  async refreshCheckpoints(): Promise<void> {
    const sid = this.model.sessionId;
    if (!sid || !this.backend.checkpoints) return;
    const marks = () => JSON.stringify(this.model.items.map((i) => (i.kind === 'user' ? i.checkpoint ?? null : null)));
    const before = marks();
    try {
      this.model.assignCheckpoints(await this.backend.checkpoints(sid));
    } catch {
      this.model.assignCheckpoints([]);
    }
    if (marks() !== before) this.render(false);
  }

  private error(e: unknown): void {
    this.model.items.push({ kind: 'status', text: (e as Error)?.message ?? String(e), level: 'error' });
    this.render(true);
  }

  /** "Rewind to here" (spec/sessions.md §13.3): files the user changed after the checkpoint are
   * listed and the user asked before any is overwritten; then the chat shows the conversation
   * as it was and the prompt box holds the rewound prompt again. */
  async rewindTo(checkpoint: number): Promise<void> {
    const sessionId = this.model.sessionId;
    if (!sessionId || this.model.running || !this.backend.rewind) return;
    try {
      let r = await this.backend.rewind({ sessionId, checkpoint, resolve: 'ask' });
      if (!r.rewound && r.conflicts.length) {
        const overwrite = 'Overwrite my changes';
        const keep = 'Keep my changes';
        const pick = await this.backend.confirm?.(
          `Rewind to before "${r.prompt ?? ''}"? You changed ${r.conflicts.length === 1 ? 'this file' : 'these files'} after that point: ${r.conflicts.join(', ')}.`,
          [overwrite, keep],
        );
        if (pick !== overwrite && pick !== keep) {
          this.model.items.push({ kind: 'status', text: 'Rewind cancelled: nothing changed.', level: 'info' });
          return void this.render(true);
        }
        r = await this.backend.rewind({ sessionId, checkpoint, resolve: pick === overwrite ? 'overwrite' : 'keep' });
      }
      if (this.backend.transcript) this.model.load(sessionId, await this.backend.transcript(sessionId));
      this.model.items.push({ kind: 'status', ...rewindSummary(r) });
      if (r.prompt) void this.panel.webview.postMessage({ type: 'prompt', text: r.prompt });
      this.render(true);
      await Promise.all([this.refreshChanges(), this.refreshCheckpoints()]);
    } catch (e) {
      this.error(e);
    }
  }

  private async keep(path?: string): Promise<void> {
    const sid = this.model.sessionId;
    if (!sid || !this.backend.keep) return;
    try {
      await this.backend.keep(sid, path === undefined ? undefined : [path]);
    } catch (e) {
      this.error(e);
    }
    await this.refreshChanges();
  }

  private async undo(path: string, hunk?: number): Promise<void> {
    const sid = this.model.sessionId;
    const change = this.model.changes?.find((c) => c.path === path);
    if (!sid || !change || !this.backend.undo) return;
    try {
      await this.backend.undo(sid, path, hunk === undefined ? undefined : change.hunks.map((_, i) => i === hunk));
    } catch (e) {
      this.error(e);
    }
    await this.refreshChanges();
  }

  /** The `alisio/approve` request: asked in the owning chat; undefined when no chat owns it. */
  static ask(params: ApproveParams, token: vscode.CancellationToken): Promise<Decision> | undefined {
    const owners = [...ChatPanel.panels].filter((p) => p.model.sessionId === params.sessionId || (!p.model.sessionId && p.model.running));
    const p = owners.find((o) => o.model.running) ?? owners[0];
    return p?.ask(params, token);
  }

  /** An approval answered elsewhere (the diff editor): the chat shows the decision, and
   * whether the reply carried the user's version of the change. */
  static settle(callId: string, decision: Decision, edited = false): void {
    for (const p of ChatPanel.panels) {
      const resolve = p.waiting.get(callId);
      if (resolve) {
        p.waiting.delete(callId);
        p.model.answer(callId, decision);
        resolve(decision);
      }
      const item = p.model.approval(callId);
      if (item && edited) item.edited = true;
      if (item) p.render(false);
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
        this.renderAttachments();
        break;
      case 'send':
        void this.send(String(m.prompt ?? ''));
        break;
      case 'mode':
        // '' = as configured (session.mode); the choice applies to the next prompt sent
        this.model.mode = m.mode === 'coordinator' || m.mode === 'default' ? m.mode : undefined;
        break;
      case 'retry':
        if (this.model.last && !this.model.running) void this.send(this.model.last.prompt, this.model.last.attachments);
        break;
      case 'sessions':
        void this.showSessions();
        break;
      case 'open':
        if (typeof m.sessionId === 'string') void this.openSession(m.sessionId);
        break;
      case 'detach':
        this.pending.splice(Number(m.index), 1);
        this.renderAttachments();
        break;
      case 'attachOpen':
        for (const a of this.backend.openEditors?.() ?? []) this.attach(a);
        break;
      case 'attachActive': {
        const a = this.backend.activeFile?.();
        if (a) this.attach(a);
        break;
      }
      case 'rewind':
        void this.rewindTo(Number(m.checkpoint));
        break;
      case 'keep':
        void this.keep(typeof m.path === 'string' ? m.path : undefined);
        break;
      case 'undo':
        if (typeof m.path === 'string') void this.undo(m.path, m.hunk === undefined || m.hunk === '' ? undefined : Number(m.hunk));
        break;
      case 'changeDiff': {
        const c = this.model.changes?.find((x) => x.path === m.path);
        if (c) this.backend.showChange?.(c);
        break;
      }
      case 'code':
        if (typeof m.text !== 'string') return;
        if (m.action === 'copy') this.backend.copy?.(m.text);
        else if (m.action === 'insert') this.backend.insert?.(m.text);
        break;
      case 'complete':
        void this.complete(String(m.query ?? ''));
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

  private async complete(query: string): Promise<void> {
    const items = (await this.backend.complete?.(query).catch(() => [])) ?? [];
    void this.panel.webview.postMessage({ type: 'completions', query, items });
  }

  /** The attachments of a prompt: the pending ones, then every `@path` naming a workspace file. */
  private async attachmentsFor(prompt: string, pending: PendingAttachment[]): Promise<PendingAttachment[]> {
    const out = [...pending];
    for (const m of prompt.matchAll(/(?:^|\s)@([^\s@]+)/g)) {
      const uri = await this.backend.mention?.(m[1]);
      if (uri && !out.some((a) => a.uri === uri && !a.range)) out.push({ uri, label: m[1] });
    }
    return out;
  }

  async send(prompt: string, again?: PendingAttachment[]): Promise<void> {
    if (!prompt.trim() || this.model.running) {
      return;
    }
    // chips persist until removed (×): each prompt carries them
    const attachments = again ?? (await this.attachmentsFor(prompt, this.pending));
    this.model.sessions = undefined;
    this.model.addUser(prompt, attachments);
    this.render(true);
    this.cancel = new vscode.CancellationTokenSource();
    try {
      const sent: Attachment[] = attachments.map((a) => (a.range ? { uri: a.uri, range: a.range } : { uri: a.uri }));
      const params: Parameters<ChatBackend['runSession']>[0] = { prompt, sessionId: this.model.sessionId, attachments: sent.length ? sent : undefined };
      if (this.model.mode) params.mode = this.model.mode;
      const result = await this.backend.runSession(params, this.cancel.token);
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
    await Promise.all([this.refreshChanges(), this.refreshCheckpoints()]);
  }

  /** The chips, then (once their text is read) with what they cost in the next request. */
  private renderAttachments(): void {
    if (!this.ready || this.disposed) return;
    const chips = [...this.pending];
    void this.panel.webview.postMessage({ type: 'attachments', html: renderChipsHtml(chips.map((a) => ({ label: a.label }))) });
    const read = this.backend.attachmentText;
    if (!read || !chips.length) {
      if (this.model.chipTokens !== undefined) {
        this.model.chipTokens = undefined;
        this.render(false);
      }
      return;
    }
    void Promise.all(chips.map((a) => read(a).catch(() => undefined))).then((texts) => {
      if (this.disposed || chips.length !== this.pending.length || chips.some((c, i) => c !== this.pending[i])) return;
      const costed = chips.map((a, i) => ({ label: a.label, tokens: texts[i] === undefined ? undefined : chipTokens(a, texts[i] as string) }));
      void this.panel.webview.postMessage({ type: 'attachments', html: renderChipsHtml(costed) });
      // the context meter shows them before sending
      this.model.chipTokens = costed.every((c) => c.tokens !== undefined) ? costed.reduce((n, c) => n + (c.tokens ?? 0), 0) : undefined;
      this.render(false);
    });
  }

  private render(scroll: boolean): void {
    if (!this.ready || this.disposed) return;
    void this.panel.webview.postMessage({ type: 'html', html: renderChatHtml(this.model), scroll });
    void this.panel.webview.postMessage({ type: 'running', running: this.model.running });
  }
}
