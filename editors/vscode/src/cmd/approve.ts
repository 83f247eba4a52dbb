// The server's `alisio/approve` request: asked in the chat that owns the session; with no such
// chat, a non-modal notification with the same three choices.
import * as vscode from 'vscode';
import { CancellationToken } from 'vscode-languageclient/node';
import { ApproveParams, Decision } from '../lsp_ext';
import { ChatPanel } from '../views/chat';
import { Ctx } from './ctx';

export async function askApproval(_ctx: Ctx, params: ApproveParams, token: CancellationToken): Promise<Decision> {
  const inChat = ChatPanel.ask(params, token);
  if (inChat) return inChat;
  const choices: Record<string, Decision> = { 'Allow once': 'allow-once', 'Allow for this session': 'allow-session', Deny: 'deny' };
  const paths = params.paths?.length ? ` (${params.paths.join(', ')})` : '';
  const pick = await vscode.window.showWarningMessage(`Alisio agent asks: ${params.summary}${paths}`, { modal: false }, ...Object.keys(choices));
  return pick ? choices[pick] : 'deny';
}
