// The server's `alisio/approve` request (spec/sessions.md §4.4) with its preview: a file change
// opens a real diff editor (read-only virtual documents, scheme `alisio-preview`) whose title
// bar has Approve once / Approve for session / Deny; the chat that owns the session shows the
// same choices, and whichever answers first decides (the other shows the decision). With no
// chat, a non-modal notification asks instead. Nothing here blocks the server: it waits for
// the answer in its own request, and the server's timeout still applies.
import * as vscode from 'vscode';
import { CancellationToken } from 'vscode-languageclient/node';
import { ApproveParams, Decision } from '../lsp_ext';
import { ChatPanel } from '../views/chat';
import { callIdOf, diffable, diffTitle, PREVIEW_SCHEME, previewPaths } from '../views/preview';
import { Ctx } from './ctx';

interface Pending {
  params: ApproveParams;
  resolve(d: Decision): void;
  uris?: { before: vscode.Uri; after: vscode.Uri };
}

const pending = new Map<string, Pending>();
const docs = new Map<string, string>();

/** The content provider of the preview documents and the three title-bar commands. */
export function registerPreviews(): vscode.Disposable[] {
  return [
    vscode.workspace.registerTextDocumentContentProvider(PREVIEW_SCHEME, {
      provideTextDocumentContent: (uri) => docs.get(uri.path) ?? '',
    }),
  ];
}

/** Title-bar command of the diff editor: answers the call of the preview document `arg`. */
export function answerFromDiff(decision: Decision) {
  return (_ctx: Ctx, arg?: unknown): void => {
    const uri = arg instanceof vscode.Uri ? arg : vscode.window.activeTextEditor?.document.uri;
    const id = uri && uri.scheme === PREVIEW_SCHEME ? callIdOf(uri.path) : undefined;
    const p = id ? pending.get(id) : undefined;
    if (p) p.resolve(decision);
  };
}

/** Opens (again) the diff of a pending approval. */
export async function showDiff(callId: string): Promise<void> {
  const p = pending.get(callId);
  if (!p?.uris || !diffable(p.params.preview)) return;
  await vscode.commands.executeCommand('vscode.diff', p.uris.before, p.uris.after, diffTitle(p.params.preview, p.params.tool), { preview: false });
}

async function closeDiff(p: Pending): Promise<void> {
  if (!p.uris) return;
  const after = p.uris.after.toString();
  const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => {
    const input = t.input as { modified?: vscode.Uri } | undefined;
    return input?.modified?.toString() === after;
  });
  if (tabs.length) await vscode.window.tabGroups.close(tabs);
  docs.delete(p.uris.before.path);
  docs.delete(p.uris.after.path);
}

export async function askApproval(_ctx: Ctx, params: ApproveParams, token: CancellationToken): Promise<Decision> {
  let resolveHere!: (d: Decision) => void;
  const here = new Promise<Decision>((r) => (resolveHere = r));
  const p: Pending = { params, resolve: resolveHere };
  pending.set(params.callId, p);
  const preview = params.preview;
  if (diffable(preview)) {
    const paths = previewPaths(params.callId, preview.path);
    docs.set(paths.before, preview.before ?? '');
    docs.set(paths.after, preview.after ?? '');
    p.uris = { before: vscode.Uri.from({ scheme: PREVIEW_SCHEME, path: paths.before }), after: vscode.Uri.from({ scheme: PREVIEW_SCHEME, path: paths.after }) };
    void showDiff(params.callId);
  }
  const inChat = ChatPanel.ask(params, token);
  const elsewhere = inChat ?? notification(params);
  token.onCancellationRequested(() => resolveHere('deny'));
  const decision = await Promise.race([here, elsewhere]);
  pending.delete(params.callId);
  ChatPanel.settle(params.callId, decision);
  await closeDiff(p);
  return decision;
}

async function notification(params: ApproveParams): Promise<Decision> {
  const choices: Record<string, Decision> = { 'Allow once': 'allow-once', 'Allow for this session': 'allow-session', Deny: 'deny' };
  const paths = params.paths?.length ? ` (${params.paths.join(', ')})` : '';
  const pick = await vscode.window.showWarningMessage(`Alisio agent asks: ${params.summary}${paths}`, { modal: false }, ...Object.keys(choices));
  return pick ? choices[pick] : 'deny';
}
