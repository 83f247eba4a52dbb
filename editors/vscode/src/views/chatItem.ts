// One line of the chat as the user sees it, and the one-line form of a value: the leaf that the
// chat model (chatModel.ts) and the transcript of an earlier session (transcript.ts) share. Pure.
import type { ApprovalPreview } from '../lsp_ext';

export type ChatItem =
  | { kind: 'user'; text: string; attachments?: string[]; checkpoint?: number }
  | { kind: 'assistant'; text: string; turn?: number; child: boolean }
  | { kind: 'tool'; id: string; name: string; args: string; status: 'running' | 'ok' | 'error'; outcome?: string; durationMs?: number; preview?: string; child: boolean }
  | { kind: 'approval'; callId: string; tool: string; effect: string; summary: string; paths: string[]; preview?: ApprovalPreview; decision?: string; source?: string; edited?: boolean }
  | { kind: 'status'; text: string; level: 'info' | 'error' }
  /** spec/sessions.md §12.5: the session handed over to a new link of its relay chain. */
  | { kind: 'relay'; from: string; to: string };

export function oneLine(s: unknown, max: number): string {
  const text = (typeof s === 'string' ? s : JSON.stringify(s ?? '')).replace(/\s+/g, ' ');
  const chars = [...text];
  return chars.length > max ? chars.slice(0, max - 1).join('') + '…' : text;
}
