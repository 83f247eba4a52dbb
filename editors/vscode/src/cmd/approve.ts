// The server's `alisio/approve` request (spec/sessions.md §4.4) with its preview: a file change
// opens a real diff editor whose left side (the file as it is, scheme `alisio-preview`) is
// read-only and whose right side (the proposal, scheme `alisio-review`, an in-memory file) the
// user may change: "Reject Hunk" puts the current lines back under the cursor, "Accept Hunk"
// takes the proposal's again, and any line may be typed over. The title bar has Approve once /
// Approve for session / Deny; the chat that owns the session shows the same choices, and
// whichever answers first decides (the other shows the decision). An allow sends the reviewed
// text as `content` when it is not the proposal, and the server writes exactly that (or refuses
// a stale approval). With no chat, a non-modal notification asks instead. Nothing here blocks
// the server: it waits for the answer in its own request, and the server's timeout still applies.
import * as vscode from 'vscode';
import { CancellationToken } from 'vscode-languageclient/node';
import { ApproveParams, ApproveResult, Decision } from '../lsp_ext';
import { ChatPanel } from '../views/chat';
import { replaceHunkAt } from '../views/hunks';
import { callIdOf, diffable, diffTitle, PREVIEW_SCHEME, previewPaths, REVIEW_SCHEME, reviewReply } from '../views/preview';
import { Ctx } from './ctx';

interface Pending {
  params: ApproveParams;
  resolve(d: Decision): void;
  uris?: { before: vscode.Uri; after: vscode.Uri };
}

const pending = new Map<string, Pending>();
const docs = new Map<string, string>();

/** A read-only document of the `alisio-preview` scheme (a change's baseline in the Changes view). */
export function setPreviewText(path: string, text: string): void {
  docs.set(path, text);
}

/** The in-memory files of the proposed sides: writable, so the diff editor's right side is. */
class ReviewFs implements vscode.FileSystemProvider {
  /** A stable time per file (a save checks it against what was loaded). */
  private mtimes = new Map<string, number>();
  private changed = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.changed.event;
  watch(): vscode.Disposable {
    return new vscode.Disposable(() => {});
  }
  stat(uri: vscode.Uri): vscode.FileStat {
    const text = docs.get(uri.path);
    if (text === undefined) throw vscode.FileSystemError.FileNotFound(uri);
    let mtime = this.mtimes.get(uri.path);
    if (mtime === undefined) this.mtimes.set(uri.path, (mtime = Date.now()));
    return { type: vscode.FileType.File, ctime: mtime, mtime, size: Buffer.byteLength(text) };
  }
  readDirectory(): [string, vscode.FileType][] {
    return [];
  }
  createDirectory(): void {}
  readFile(uri: vscode.Uri): Uint8Array {
    const text = docs.get(uri.path);
    if (text === undefined) throw vscode.FileSystemError.FileNotFound(uri);
    return Buffer.from(text, 'utf8');
  }
  writeFile(uri: vscode.Uri, content: Uint8Array): void {
    // a save (Ctrl+S) of the proposed side keeps the reviewed text here
    if (!docs.has(uri.path)) throw vscode.FileSystemError.NoPermissions(uri);
    docs.set(uri.path, Buffer.from(content).toString('utf8'));
    this.mtimes.set(uri.path, Date.now());
    this.changed.fire([{ type: vscode.FileChangeType.Changed, uri }]);
  }
  delete(): void {}
  rename(): void {}
}

/** The content provider of the current sides and the file system of the proposed sides. */
export function registerPreviews(): vscode.Disposable[] {
  return [
    vscode.workspace.registerTextDocumentContentProvider(PREVIEW_SCHEME, {
      provideTextDocumentContent: (uri) => docs.get(uri.path) ?? '',
    }),
    vscode.workspace.registerFileSystemProvider(REVIEW_SCHEME, new ReviewFs(), { isCaseSensitive: true }),
  ];
}

function pendingOf(uri: vscode.Uri | undefined): Pending | undefined {
  const id = uri && (uri.scheme === PREVIEW_SCHEME || uri.scheme === REVIEW_SCHEME) ? callIdOf(uri.path) : undefined;
  return id ? pending.get(id) : undefined;
}

/** Title-bar command of the diff editor: answers the call of the preview document `arg`. */
export function answerFromDiff(decision: Decision) {
  return (_ctx: Ctx, arg?: unknown): void => {
    const p = pendingOf(arg instanceof vscode.Uri ? arg : vscode.window.activeTextEditor?.document.uri);
    if (p) p.resolve(decision);
  };
}

/** "Reject Hunk" (`side` before: the file's lines again) and "Accept Hunk" (after: the
 * proposal's) at the cursor of the proposed side under review. */
export function reviewHunk(side: 'before' | 'after') {
  return async (): Promise<void> => {
    const ed = vscode.window.activeTextEditor;
    const p = ed?.document.uri.scheme === REVIEW_SCHEME ? pendingOf(ed.document.uri) : undefined;
    if (!ed || !p || !diffable(p.params.preview)) {
      return void vscode.window.showInformationMessage('Alisio: put the cursor on a change in the proposed side of a write under review.');
    }
    const source = side === 'before' ? p.params.preview.before ?? '' : p.params.preview.after ?? '';
    const current = ed.document.getText();
    const next = replaceHunkAt(source, current, ed.selection.active.line);
    if (next === undefined) {
      return void vscode.window.showInformationMessage(`Alisio: no ${side === 'before' ? 'proposed change' : 'edited line'} under the cursor.`);
    }
    const all = new vscode.Range(ed.document.positionAt(0), ed.document.positionAt(current.length));
    await ed.edit((b) => b.replace(all, next));
  };
}

/** Opens (again) the diff of a pending approval. */
export async function showDiff(callId: string): Promise<void> {
  const p = pending.get(callId);
  if (!p?.uris || !diffable(p.params.preview)) return;
  await vscode.commands.executeCommand('vscode.diff', p.uris.before, p.uris.after, diffTitle(p.params.preview, p.params.tool), { preview: false });
}

/** The proposed side as the user left it: the open document's text (unsaved edits count), else
 * what a save kept; undefined when there is no review document. */
function reviewed(p: Pending): string | undefined {
  if (!p.uris) return undefined;
  const after = p.uris.after.toString();
  const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === after);
  if (doc && doc.isDirty) return doc.getText();
  return docs.get(p.uris.after.path);
}

async function closeDiff(p: Pending): Promise<void> {
  if (!p.uris) return;
  const after = p.uris.after.toString();
  // a changed proposed side is saved into its in-memory file first: closing it asks nothing
  const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === after);
  if (doc?.isDirty) await doc.save().then(undefined, () => false);
  const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => {
    const input = t.input as { modified?: vscode.Uri } | undefined;
    return input?.modified?.toString() === after;
  });
  if (tabs.length) await vscode.window.tabGroups.close(tabs);
  docs.delete(p.uris.before.path);
  docs.delete(p.uris.after.path);
}

export async function askApproval(_ctx: Ctx, params: ApproveParams, token: CancellationToken): Promise<ApproveResult> {
  let resolveHere!: (d: Decision) => void;
  const here = new Promise<Decision>((r) => (resolveHere = r));
  const p: Pending = { params, resolve: resolveHere };
  pending.set(params.callId, p);
  const preview = params.preview;
  if (diffable(preview)) {
    const paths = previewPaths(params.callId, preview.path);
    docs.set(paths.before, preview.before ?? '');
    docs.set(paths.after, preview.after ?? '');
    p.uris = { before: vscode.Uri.from({ scheme: PREVIEW_SCHEME, path: paths.before }), after: vscode.Uri.from({ scheme: REVIEW_SCHEME, path: paths.after }) };
    void showDiff(params.callId);
  }
  const inChat = ChatPanel.ask(params, token);
  const elsewhere = inChat ?? notification(params);
  token.onCancellationRequested(() => resolveHere('deny'));
  const decision = await Promise.race([here, elsewhere]);
  const reply = diffable(preview) && !token.isCancellationRequested ? reviewReply(decision, preview.after, reviewed(p)) : { decision };
  pending.delete(params.callId);
  ChatPanel.settle(params.callId, decision, reply.content !== undefined);
  await closeDiff(p);
  return reply;
}

async function notification(params: ApproveParams): Promise<Decision> {
  const choices: Record<string, Decision> = { 'Allow once': 'allow-once', 'Allow for this session': 'allow-session', Deny: 'deny' };
  const paths = params.paths?.length ? ` (${params.paths.join(', ')})` : '';
  const pick = await vscode.window.showWarningMessage(`Alisio agent asks: ${params.summary}${paths}`, { modal: false }, ...Object.keys(choices));
  return pick ? choices[pick] : 'deny';
}
