// The agent chat's commands: Start Agent Session, Resume Agent Session (an earlier session of
// the workspace from `alisio/listSessions`, its transcript from `alisio/sessionTranscript`),
// Add File to Chat and Add Selection to Chat (attachments of the next prompt, read by the
// server from its overlay so unsaved text counts), and what the chat panel asks of the editor
// (`@path` completion, Copy, Insert at cursor).
import * as path from 'path';
import * as vscode from 'vscode';
import * as ext from '../lsp_ext';
import type { Change } from '../lsp_ext';
import { ChatBackend, ChatPanel } from '../views/chat';
import type { PendingAttachment } from '../views/chatModel';
import { PREVIEW_SCHEME } from '../views/preview';
import { setPreviewText, showDiff } from './approve';
import { Ctx } from './ctx';

/** The workspace-relative label of a URI (absolute outside the workspace). */
function label(uri: vscode.Uri): string {
  const rel = vscode.workspace.asRelativePath(uri, false);
  return rel || path.basename(uri.fsPath);
}

/** The last text editor the user typed in (the chat webview is not one). */
let lastEditor: vscode.TextEditor | undefined;
export function trackEditors(): vscode.Disposable {
  lastEditor = vscode.window.activeTextEditor;
  return vscode.window.onDidChangeActiveTextEditor((e) => {
    if (e) lastEditor = e;
  });
}

export function backend(ctx: Ctx): ChatBackend {
  return {
    runSession: ctx.runSession,
    openReport: ctx.openReport,
    showDiff: (id) => void showDiff(id),
    listSessions: () => ctx.client.request(ext.listSessions, {}),
    transcript: (sessionId) => ctx.client.request(ext.sessionTranscript, { sessionId }),
    complete: async (query) => {
      const glob = `**/*${query.replace(/[[\]{}*?]/g, '')}*`;
      const found = await vscode.workspace.findFiles(glob, '**/{node_modules,.git,target}/**', 20);
      return found.map(label).sort();
    },
    mention: async (rel) => {
      const root = vscode.workspace.workspaceFolders?.[0]?.uri;
      if (!root) return undefined;
      const uri = vscode.Uri.joinPath(root, rel);
      try {
        const st = await vscode.workspace.fs.stat(uri);
        return st.type & vscode.FileType.File ? uri.toString() : undefined;
      } catch {
        return undefined;
      }
    },
    changes: (sessionId) => ctx.client.request(ext.sessionChanges, { sessionId }),
    keep: (sessionId, paths) => ctx.client.request(ext.keepChanges, paths ? { sessionId, paths } : { sessionId }),
    undo: (sessionId, path, hunks) => ctx.client.request(ext.undoChange, hunks ? { sessionId, path, hunks } : { sessionId, path }),
    checkpoints: (sessionId) => ctx.client.request(ext.checkpoints, { sessionId }),
    rewind: (params) => ctx.client.request(ext.rewind, params),
    confirm: async (message, items) => vscode.window.showWarningMessage(message, { modal: true }, ...items),
    showChange: (change) => void showChange(change),
    attachmentText: async (a) => (await vscode.workspace.openTextDocument(vscode.Uri.parse(a.uri))).getText(),
    openEditors,
    activeFile: () => {
      const uri = lastEditor && !lastEditor.document.isClosed ? lastEditor.document.uri : undefined;
      return uri && uri.scheme === 'file' ? { uri: uri.toString(), label: label(uri) } : undefined;
    },
    copy: (text) => void vscode.env.clipboard.writeText(text),
    insert: (text) => {
      const ed = lastEditor;
      if (!ed || ed.document.isClosed) return void vscode.window.showInformationMessage('Alisio: open an editor to insert the code into.');
      void ed.edit((b) => ed.selections.forEach((s) => b.replace(s, text)));
    },
  };
}

/** Every open text editor of the workspace (file URIs; unsaved text counts: the server reads
 * its overlay), as chips. */
function openEditors(): PendingAttachment[] {
  const seen = new Set<string>();
  const out: PendingAttachment[] = [];
  for (const tab of vscode.window.tabGroups.all.flatMap((g) => g.tabs)) {
    const uri = tab.input instanceof vscode.TabInputText ? tab.input.uri : undefined;
    if (!uri || uri.scheme !== 'file' || seen.has(uri.toString())) continue;
    seen.add(uri.toString());
    out.push({ uri: uri.toString(), label: label(uri) });
  }
  return out;
}

export function attachOpenEditors(ctx: Ctx): void {
  const all = openEditors();
  if (!all.length) return void vscode.window.showInformationMessage('Alisio: no open text editor to attach.');
  const chat = ChatPanel.current(backend(ctx));
  for (const a of all) chat.attach(a);
}

let changeViews = 0;

/** A change of the session as a diff: its baseline (read-only) against the file as it is. */
async function showChange(change: Change): Promise<void> {
  const root = vscode.workspace.workspaceFolders?.[0]?.uri;
  if (!root) return;
  const file = vscode.Uri.joinPath(root, change.path);
  // a new path each time: the content provider's documents are cached by URI
  const before = vscode.Uri.from({ scheme: PREVIEW_SCHEME, path: `/changes/${++changeViews}/${change.path}` });
  setPreviewText(before.path, change.before ?? '');
  await vscode.commands.executeCommand('vscode.diff', before, file, `${change.path} (before the session ↔ now)`, { preview: true });
}

export function startSession(ctx: Ctx): void {
  ChatPanel.open(backend(ctx));
}

export async function resumeSession(ctx: Ctx, sessionId?: unknown): Promise<void> {
  try {
    let id = typeof sessionId === 'string' ? sessionId : undefined;
    if (!id) {
      const sessions = await ctx.client.request(ext.listSessions, {});
      if (!sessions?.length) return void vscode.window.showInformationMessage('Alisio: no earlier agent session in this workspace.');
      const pick = await vscode.window.showQuickPick(
        sessions.map((s) => ({ label: s.title || s.sessionId, description: `${s.messages ?? 0} messages${s.relayOf ? ` (relay of ${s.relayOf})` : ''}`, detail: `${s.updatedAt ?? ''} · ${s.sessionId}`, id: s.sessionId })),
        { title: 'Alisio: resume which session?' },
      );
      id = pick?.id;
    }
    if (id) await ChatPanel.open(backend(ctx)).openSession(id);
  } catch (e) {
    ctx.failed('Resume Agent Session')(e);
  }
}

export function addFileToChat(ctx: Ctx, arg?: unknown): void {
  const uri = ctx.activeUri(arg);
  if (!uri) return void vscode.window.showInformationMessage('Alisio: open a file to add it to the chat.');
  ChatPanel.current(backend(ctx)).attach({ uri: uri.toString(), label: label(uri) });
}

export function addSelectionToChat(ctx: Ctx): void {
  const ed = vscode.window.activeTextEditor ?? lastEditor;
  if (!ed) return void vscode.window.showInformationMessage('Alisio: select some text to add it to the chat.');
  const sel = ed.selection;
  const uri = ed.document.uri;
  if (sel.isEmpty) return addFileToChat(ctx, uri);
  // Whole lines; an end at the start of a line stops before it (as the server reads it).
  const endLine = sel.end.character === 0 && sel.end.line > sel.start.line ? sel.end.line - 1 : sel.end.line;
  ChatPanel.current(backend(ctx)).attach({
    uri: uri.toString(),
    range: { start: { line: sel.start.line, character: 0 }, end: { line: sel.end.line, character: sel.end.character } },
    label: `${label(uri)}:${sel.start.line + 1}-${endLine + 1}`,
  });
}
