// An earlier session's transcript (`alisio/sessionTranscript`, the `sessions show --json`
// object) as chat items, so a resumed chat shows what was said before. Pure.
import type { StoredMessage, StoredPart, Transcript } from '../lsp_ext';
import type { ChatItem } from './chatItem';
import { oneLine } from './chatItem';

const ATTACHMENT = /^<attachment path="([^"]*)"(?: lines="(\d+)-(\d+)")?>\n/;

function unescapeAttr(s: string): string {
  return s.replace(/&quot;/g, '"').replace(/&amp;/g, '&');
}

/** A user message's text parts split into its attachments (label) and the prompt. */
export function userParts(content: StoredPart[] | undefined): { text: string; attachments: string[] } {
  const attachments: string[] = [];
  let text = '';
  for (const p of content ?? []) {
    if (p?.type !== 'text' || typeof p.text !== 'string') continue;
    const m = ATTACHMENT.exec(p.text);
    if (m && p.text.trimEnd().endsWith('</attachment>')) {
      attachments.push(m[2] ? `${unescapeAttr(m[1])}:${m[2]}-${m[3]}` : unescapeAttr(m[1]));
    } else {
      text += p.text;
    }
  }
  return { text, attachments };
}

export function transcriptItems(t: Transcript): ChatItem[] {
  const items: ChatItem[] = [];
  const tools = new Map<string, Extract<ChatItem, { kind: 'tool' }>>();
  for (const row of t.messages ?? []) {
    const m: StoredMessage = row.message ?? {};
    if (row.compacted) continue; // summarised away; the checkpoint stands for it
    if (row.role === 'user') {
      if (row.kind === 'checkpoint') {
        items.push({ kind: 'status', text: 'Earlier history was compacted into a summary.', level: 'info' });
        continue;
      }
      const u = userParts(m.content);
      items.push({ kind: 'user', text: u.text, attachments: u.attachments });
    } else if (row.role === 'assistant') {
      const text = (m.content ?? []).filter((p: any) => p?.type === 'text').map((p: any) => String(p.text ?? '')).join('');
      if (text) items.push({ kind: 'assistant', text, child: false });
      for (const c of (m.content ?? []).filter((p: any) => p?.type === 'tool_call')) {
        const item: Extract<ChatItem, { kind: 'tool' }> = { kind: 'tool', id: String(c.id), name: String(c.name), args: oneLine(c.arguments ?? '', 120), status: 'running', child: false };
        tools.set(item.id, item);
        items.push(item);
      }
    } else if (row.role === 'tool') {
      const item = tools.get(String(m.callId));
      if (item) {
        item.status = m.isError ? 'error' : 'ok';
        item.outcome = m.outcome;
      }
    }
  }
  return items;
}
