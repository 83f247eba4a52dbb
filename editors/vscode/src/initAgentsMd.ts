// "Alisio: Create or update AGENTS.md" (spec/instructions.md §9): asks the server for the proposal
// (`alisio/initAgentsMd`), shows it as a diff against the file on disk, and writes it only when
// the user accepts; the server writes atomically and only the bytes that were shown (sha256).
import * as vscode from 'vscode';
import * as ext from './lsp_ext';

export const INIT_COMMAND = 'alisio.initAgentsMd';
const SCHEME = 'alisio-init';

export interface InitProposal {
  uri: string;
  exists: boolean;
  current: string | null;
  proposed: string;
  sha256: string;
  changed: boolean;
  written: boolean;
}

interface Requester {
  request<R>(method: string, params: unknown): Promise<R>;
  output: { error(message: string): void };
}

/** The message shown after the diff (pure, tested). */
export function confirmMessage(p: InitProposal): string {
  if (!p.changed) return 'Alisio: AGENTS.md is up to date; nothing to write.';
  return p.exists
    ? 'Alisio: update the project facts section of AGENTS.md as shown? Nothing outside its markers changes.'
    : 'Alisio: create AGENTS.md as shown?';
}

export function registerInitAgentsMd(context: vscode.ExtensionContext, client: Requester): void {
  const docs = new Map<string, string>();
  const changed = new vscode.EventEmitter<vscode.Uri>();
  context.subscriptions.push(
    changed,
    vscode.workspace.registerTextDocumentContentProvider(SCHEME, {
      onDidChange: changed.event,
      provideTextDocumentContent: (uri) => docs.get(uri.toString()) ?? '',
    }),
    vscode.commands.registerCommand(INIT_COMMAND, async () => {
      const folder = vscode.window.activeTextEditor
        ? vscode.workspace.getWorkspaceFolder(vscode.window.activeTextEditor.document.uri)
        : vscode.workspace.workspaceFolders?.[0];
      const at = folder?.uri ?? vscode.workspace.workspaceFolders?.[0]?.uri;
      if (!at) return void vscode.window.showInformationMessage('Alisio: open a folder to create its AGENTS.md.');
      try {
        const p = await client.request<InitProposal>(ext.initAgentsMd.method, { uri: at.toString() });
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
        const w = await client.request<InitProposal>(ext.initAgentsMd.method, { uri: at.toString(), write: true, sha256: p.sha256 });
        if (w.written) {
          await vscode.window.showTextDocument(target, { preview: false });
          void vscode.window.showInformationMessage(`Alisio: AGENTS.md ${p.exists ? 'updated' : 'created'}.`);
        }
      } catch (e) {
        const msg = (e as Error)?.message ?? String(e);
        client.output.error(`Create or update AGENTS.md: ${msg}`);
        void vscode.window.showErrorMessage(`Alisio: ${msg}`);
      }
    }),
  );
}
