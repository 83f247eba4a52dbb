// Entry point of the Alisio extension: one language client for alisio-ls (client.ts), kept in
// step with trust and settings (sync.ts), and the commands and views built on the server's
// custom methods (interfaces.md §3.1).
import * as fs from 'fs';
import * as vscode from 'vscode';
import { WorkDoneProgress } from 'vscode-languageclient/node';
import { AlisioClient } from './client';
import { Commands } from './commands';
import { registerInitAgentsMd } from './initAgentsMd';
import { registerStatusBar } from './statusBar';
import { SettingsSync } from './sync';
import { ChatPanel, RunResult } from './views/chat';
import { ApproveParams, Decision } from './views/chatModel';
import { ReportPanel } from './views/report';
import { ContextReport, ExplainResult, renderExplainMarkdown, SkillEntry, skillItem } from './views/render';

const EXPLAIN_SCHEME = 'alisio-explain';

export interface AlisioApi {
  client: AlisioClient;
  lastSessionId(): string | undefined;
}

let manager: AlisioClient | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<AlisioApi> {
  const output = vscode.window.createOutputChannel('Alisio', { log: true });
  const client = new AlisioClient(context, output);
  manager = client;
  const sync = new SettingsSync(client, (trusted) => client.discover(trusted));
  context.subscriptions.push(output, client, sync);
  registerStatusBar(context, client);
  registerInitAgentsMd(context, client);

  let lastSession: string | undefined;
  const explainDocs = new Map<string, string>();
  const explainChanged = new vscode.EventEmitter<vscode.Uri>();
  context.subscriptions.push(
    explainChanged,
    vscode.workspace.registerTextDocumentContentProvider(EXPLAIN_SCHEME, {
      onDidChange: explainChanged.event,
      provideTextDocumentContent: (uri) => explainDocs.get(uri.toString()) ?? '',
    }),
  );

  const fetchReport = (sessionId: string) => client.request<ContextReport>('alisio/contextReport', { sessionId });
  const openReport = (sessionId: string, report?: ContextReport) => {
    lastSession = sessionId;
    ReportPanel.show(sessionId, fetchReport, report);
  };

  client.onSessionEvent(({ sessionId, event }) => {
    if (event.type === 'run_started' && !event.parentSessionId && sessionId) lastSession = sessionId;
    ChatPanel.onEvent(sessionId, event);
    ReportPanel.onEvent(sessionId, event);
  });

  client.approver = async (params: ApproveParams, token): Promise<Decision> => {
    const inChat = ChatPanel.ask(params, token);
    if (inChat) return inChat;
    const choices: Record<string, Decision> = { 'Allow once': 'allow-once', 'Allow for this session': 'allow-session', Deny: 'deny' };
    const paths = params.paths?.length ? ` (${params.paths.join(', ')})` : '';
    const pick = await vscode.window.showWarningMessage(`Alisio agent asks: ${params.summary}${paths}`, { modal: false }, ...Object.keys(choices));
    return pick ? choices[pick] : 'deny';
  };

  const runSession = async (params: { prompt: string; sessionId?: string }, token: vscode.CancellationToken): Promise<RunResult> => {
    const workDoneToken = `alisio-session-${Date.now()}-${Math.random().toString(36).slice(2)}`;
    // The server's work-done progress (sessions.md §2.11: `<tool>`, `Turn <n>`) in the status bar.
    return vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'Agent session' }, async (bar) => {
      const progress = client.client?.onProgress(WorkDoneProgress.type, workDoneToken, (p) => {
        if (p.kind !== 'end' && p.message) {
          bar.report({ message: p.message });
          client.output.info(`session: ${p.message}`);
        }
      });
      try {
        const result = await client.request<RunResult>('alisio/runSession', { ...params, workDoneToken }, token);
        if (result?.sessionId) lastSession = result.sessionId;
        return result;
      } finally {
        progress?.dispose();
      }
    });
  };

  const activeUri = (arg?: unknown): vscode.Uri | undefined => {
    if (arg instanceof vscode.Uri) return arg;
    if (typeof arg === 'string') return vscode.Uri.parse(arg);
    return vscode.window.activeTextEditor?.document.uri;
  };

  const catalog = async (uri?: vscode.Uri) => (await client.request<SkillEntry[]>('alisio/skillCatalog', uri ? { uri: uri.toString() } : {})) ?? [];

  const toggle = async (entry: SkillEntry) => {
    const updated = await client.request<SkillEntry>('alisio/setSkillEnabled', { id: entry.id, enabled: !entry.enabled });
    void vscode.window.showInformationMessage(`Skill ${updated?.displayId ?? entry.id} ${updated?.enabled ? 'enabled' : 'disabled'}.`);
  };

  const failed = (what: string) => (e: unknown) => {
    const msg = (e as Error)?.message ?? String(e);
    client.output.error(`${what}: ${msg}`);
    void vscode.window.showErrorMessage(`Alisio: ${what} failed: ${msg}`);
  };

  context.subscriptions.push(
    vscode.commands.registerCommand(Commands.restart, () => client.restart('command')),
    vscode.commands.registerCommand(Commands.showOutput, () => output.show()),
    vscode.commands.registerCommand(Commands.explainFile, async (arg?: unknown) => {
      const uri = activeUri(arg);
      if (!uri) return void vscode.window.showInformationMessage('Alisio: open a file to explain its context.');
      try {
        const r = await client.request<ExplainResult>('alisio/contextExplain', { uri: uri.toString() });
        const doc = vscode.Uri.from({ scheme: EXPLAIN_SCHEME, path: `/${r.path || uri.path}.md` });
        explainDocs.set(doc.toString(), renderExplainMarkdown(r));
        explainChanged.fire(doc);
        const text = await vscode.workspace.openTextDocument(doc);
        await vscode.languages.setTextDocumentLanguage(text, 'markdown');
        // The rendered table reads best; the plain document is the fallback without the
        // built-in Markdown extension.
        const shown = await vscode.commands.executeCommand('markdown.showPreviewToSide', doc).then(() => true, () => false);
        if (!shown) {
          await vscode.window.showTextDocument(text, { viewColumn: vscode.ViewColumn.Beside, preview: true, preserveFocus: true });
        }
      } catch (e) {
        failed('Explain Context')(e);
      }
    }),
    vscode.commands.registerCommand(Commands.skillCatalog, async (id?: unknown) => {
      try {
        const entries = await catalog(vscode.window.activeTextEditor?.document.uri);
        const toggleButton = { iconPath: new vscode.ThemeIcon('circle-slash'), tooltip: 'Enable / disable' };
        const pick = vscode.window.createQuickPick<vscode.QuickPickItem & { entry: SkillEntry }>();
        pick.title = 'Alisio: skill catalog';
        pick.placeholder = entries.length ? 'Open a skill (the button enables or disables it)' : 'No skills discovered';
        pick.matchOnDetail = true;
        pick.items = entries.map((e) => ({ ...skillItem(e), entry: e, buttons: e.shadowedBy ? [] : [toggleButton] }));
        if (typeof id === 'string') {
          pick.activeItems = pick.items.filter((i) => i.entry.id === id);
          pick.value = '';
        }
        pick.onDidTriggerItemButton(async (e) => {
          pick.hide();
          await toggle(e.item.entry).catch(failed('Toggle Skill'));
        });
        pick.onDidAccept(async () => {
          const item = pick.selectedItems[0];
          pick.hide();
          if (item?.entry.file) {
            const root = vscode.workspace.workspaceFolders?.[0]?.uri;
            const file = item.entry.file.startsWith('/') || !root ? vscode.Uri.file(item.entry.file) : vscode.Uri.joinPath(root, item.entry.file);
            await vscode.window.showTextDocument(file);
          }
        });
        pick.onDidHide(() => pick.dispose());
        pick.show();
      } catch (e) {
        failed('Show Skill Catalog')(e);
      }
    }),
    vscode.commands.registerCommand(Commands.toggleSkill, async (id?: unknown) => {
      try {
        const entries = await catalog(vscode.window.activeTextEditor?.document.uri);
        let entry = typeof id === 'string' ? entries.find((e) => e.id === id) : undefined;
        if (!entry) {
          const pick = await vscode.window.showQuickPick(
            entries.filter((e) => !e.shadowedBy).map((e) => ({ ...skillItem(e), entry: e })),
            { title: 'Alisio: enable or disable a skill', placeHolder: 'Skill to toggle' },
          );
          entry = pick?.entry;
        }
        if (entry) await toggle(entry);
      } catch (e) {
        failed('Toggle Skill')(e);
      }
    }),
    vscode.commands.registerCommand(Commands.startSession, () => ChatPanel.open({ runSession, openReport })),
    vscode.commands.registerCommand(Commands.contextReport, async (sessionId?: unknown) => {
      let id = typeof sessionId === 'string' ? sessionId : undefined;
      if (!id) {
        try {
          const sessions = await client.request<{ sessionId: string; title?: string; updatedAt?: string; messages?: number }[]>('alisio/listSessions', {});
          if (sessions?.length) {
            const pick = await vscode.window.showQuickPick(
              sessions.map((s) => ({ label: s.title || s.sessionId, description: s.sessionId, detail: `${s.messages ?? 0} messages · ${s.updatedAt ?? ''}`, id: s.sessionId })),
              { title: 'Alisio: Context Report of which session?' },
            );
            id = pick?.id;
            if (!id) return;
          }
        } catch {
          // fall back to the last session of this window
        }
        id = id ?? lastSession;
      }
      if (!id) return void vscode.window.showInformationMessage('Alisio: no agent session yet. Start one with "Alisio: Start Agent Session".');
      openReport(id);
    }),
  );

  // Test hook for the code-server smoke test: diagnostics of our source written as JSON.
  const smokeOut = process.env.ALISIO_SMOKE_OUT;
  if (smokeOut) {
    const dump = () => {
      const all = vscode.languages.getDiagnostics().map(([uri, ds]) => ({
        uri: uri.toString(),
        diagnostics: ds.filter((d) => d.source === 'alisio-ls').map((d) => ({
          code: typeof d.code === 'object' ? d.code.value : d.code,
          message: d.message,
          range: [d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character],
        })),
      }));
      fs.writeFileSync(smokeOut, JSON.stringify(all));
    };
    context.subscriptions.push(vscode.languages.onDidChangeDiagnostics(dump));
  }

  await client.start();
  return { client, lastSessionId: () => lastSession };
}

export async function deactivate(): Promise<void> {
  await manager?.stop();
}
