// "Alisio: Create or update AGENTS.md" (spec/instructions.md §9): asks the server for the
// proposal (`ext.initAgentsMd`), shows it as a diff against the file on disk, and writes it only
// when the user accepts; the server writes atomically and only the bytes that were shown.
import * as vscode from 'vscode';
import { confirmMessage } from '../initAgentsMd';
import * as ext from '../lsp_ext';
import { Ctx } from './ctx';

const SCHEME = 'alisio-init';
const docs = new Map<string, string>();
const changed = new vscode.EventEmitter<vscode.Uri>();

/** The read-only documents the diff shows (registered once by extension.ts). */
export function registerInitPreviews(context: vscode.ExtensionContext): void {
  context.subscriptions.push(
    changed,
    vscode.workspace.registerTextDocumentContentProvider(SCHEME, {
      onDidChange: changed.event,
      provideTextDocumentContent: (uri) => docs.get(uri.toString()) ?? '',
    }),
  );
}

export async function initAgentsMd(ctx: Ctx): Promise<void> {
  const client = ctx.client;
  const folder = vscode.window.activeTextEditor
    ? vscode.workspace.getWorkspaceFolder(vscode.window.activeTextEditor.document.uri)
    : vscode.workspace.workspaceFolders?.[0];
  const at = folder?.uri ?? vscode.workspace.workspaceFolders?.[0]?.uri;
  if (!at) return void vscode.window.showInformationMessage('Alisio: open a folder to create its AGENTS.md.');
  try {
    const p = await client.request(ext.initAgentsMd, { uri: at.toString() });
    if (!p.changed) return void vscode.window.showInformationMessage(confirmMessage(p));
    const target = vscode.Uri.parse(p.uri);
    const proposed = vscode.Uri.from({ scheme: SCHEME, path: `${target.path}`, query: p.sha256 });
    const current = vscode.Uri.from({ scheme: SCHEME, path: `${target.path}.current`, query: p.sha256 });
    docs.set(proposed.toString(), p.proposed);
    docs.set(current.toString(), p.current ?? '');
    changed.fire(proposed);
    changed.fire(current);
    await vscode.commands.executeCommand('vscode.diff', p.exists ? target : current, proposed, `AGENTS.md ↔ proposed by alisio-ls init`, { preview: true });
    const pick = await vscode.window.showInformationMessage(confirmMessage(p), { modal: true }, 'Write');
    if (pick !== 'Write') return;
    const w = await client.request(ext.initAgentsMd, { uri: at.toString(), write: true, sha256: p.sha256 });
    if (w.written) {
      await vscode.window.showTextDocument(target, { preview: false });
      void vscode.window.showInformationMessage(`Alisio: AGENTS.md ${p.exists ? 'updated' : 'created'}.`);
    }
  } catch (e) {
    const msg = (e as Error)?.message ?? String(e);
    ctx.output.error(`Create or update AGENTS.md: ${msg}`);
    void vscode.window.showErrorMessage(`Alisio: ${msg}`);
  }
}
