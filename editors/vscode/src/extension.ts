// Entry point of the Alisio extension: one language client for alisio-ls (client.ts), kept in
// step with trust and settings (sync.ts), the commands of the table in cmd/index.ts (one file
// per command) and the views built on the server's custom methods (lsp_ext.ts, interfaces.md
// spec/interfaces.md §3.1).
import * as fs from 'fs';
import * as vscode from 'vscode';
import { AlisioClient } from './client';
import { COMMANDS } from './cmd';
import { askApproval, registerPreviews } from './cmd/approve';
import { trackEditors } from './cmd/chat';
import { Ctx, EXPLAIN_SCHEME } from './cmd/ctx';
import { registerInitPreviews } from './cmd/initAgentsMd';
import { registerStatusBar } from './statusBar';
import { SettingsSync } from './sync';
import { AUDIT_VIEW, AuditSessionsView } from './views/auditView';
import { ChatPanel } from './views/chat';
import { ReportPanel } from './views/report';

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
  const ctx = new Ctx(client, output);
  context.subscriptions.push(output, client, sync, ctx);
  registerStatusBar(context, client);
  registerInitPreviews(context);

  context.subscriptions.push(
    vscode.workspace.registerTextDocumentContentProvider(EXPLAIN_SCHEME, {
      onDidChange: ctx.explainChanged.event,
      provideTextDocumentContent: (uri) => ctx.explainDocs.get(uri.toString()) ?? '',
    }),
  );

  client.onSessionEvent(({ sessionId, event }) => {
    if (event.type === 'run_started' && !event.parentSessionId && sessionId) ctx.lastSession = sessionId;
    ChatPanel.onEvent(sessionId, event);
    ReportPanel.onEvent(sessionId, event);
  });
  client.approver = (params, token) => askApproval(ctx, params, token);
  context.subscriptions.push(...registerPreviews(), trackEditors());

  for (const [id, handler] of Object.entries(COMMANDS)) {
    context.subscriptions.push(vscode.commands.registerCommand(id, (...args: unknown[]) => handler(ctx, ...args)));
  }

  const smokeOut = process.env.ALISIO_SMOKE_OUT;
  if (smokeOut) context.subscriptions.push(dumpDiagnosticsTo(smokeOut));

  // The Audit Sessions view (spec/interfaces.md §4.6), filled when it is shown.
  const audit = new AuditSessionsView(client);
  ctx.auditView = audit;
  const tree = vscode.window.createTreeView(AUDIT_VIEW, { treeDataProvider: audit });
  context.subscriptions.push(
    audit,
    tree,
    tree.onDidChangeVisibility((e) => {
      if (e.visible) void audit.load().catch(() => undefined);
    }),
  );

  await client.start();
  if (tree.visible) void audit.load().catch(() => undefined);
  return { client, lastSessionId: () => ctx.lastSession };
}

/** Test hook for the code-server smoke test: diagnostics of our source written as JSON. */
function dumpDiagnosticsTo(file: string): vscode.Disposable {
  return vscode.languages.onDidChangeDiagnostics(() => {
    const all = vscode.languages.getDiagnostics().map(([uri, ds]) => ({
      uri: uri.toString(),
      diagnostics: ds.filter((d) => d.source === 'alisio-ls').map((d) => ({
        code: typeof d.code === 'object' ? d.code.value : d.code,
        message: d.message,
        range: [d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character],
      })),
    }));
    fs.writeFileSync(file, JSON.stringify(all));
  });
}

export async function deactivate(): Promise<void> {
  await manager?.stop();
}
