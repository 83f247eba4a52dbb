// Alisio: Show Context Report — of the session given (a code lens), else one picked from
// `alisio/listSessions`, else the last session of this window.
import * as vscode from 'vscode';
import * as ext from '../lsp_ext';
import { Ctx } from './ctx';

export async function contextReport(ctx: Ctx, sessionId?: unknown): Promise<void> {
  let id = typeof sessionId === 'string' ? sessionId : undefined;
  if (!id) {
    try {
      const sessions = await ctx.client.request(ext.listSessions, {});
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
    id = id ?? ctx.lastSession;
  }
  if (!id) return void vscode.window.showInformationMessage('Alisio: no agent session yet. Start one with "Alisio: Start Agent Session".');
  ctx.openReport(id);
}
