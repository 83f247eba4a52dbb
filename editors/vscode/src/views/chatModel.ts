// The agent chat's transcript as the user sees it, built from the session events of
// sessions.md §8 (the envelopes `alisio/sessionEvent` carries) and the approval requests of
// §4.4. Pure: the webview (chat.ts) renders `renderChatHtml(model)`.
import type { ApprovalPreview } from '../lsp_ext';
import { renderPreviewHtml } from './preview';
import { escapeHtml } from './render';

import type { ApproveParams, Decision, SessionEvent } from '../lsp_ext';

export type { ApproveParams, Decision, SessionEvent };

export type ChatItem =
  | { kind: 'user'; text: string }
  | { kind: 'assistant'; text: string; turn?: number; child: boolean }
  | { kind: 'tool'; id: string; name: string; args: string; status: 'running' | 'ok' | 'error'; outcome?: string; durationMs?: number; preview?: string; child: boolean }
  | { kind: 'approval'; callId: string; tool: string; effect: string; summary: string; paths: string[]; preview?: ApprovalPreview; decision?: string; source?: string }
  | { kind: 'status'; text: string; level: 'info' | 'error' };

export function oneLine(s: unknown, max: number): string {
  const text = (typeof s === 'string' ? s : JSON.stringify(s ?? '')).replace(/\s+/g, ' ');
  const chars = [...text];
  return chars.length > max ? chars.slice(0, max - 1).join('') + '…' : text;
}

export class ChatModel {
  items: ChatItem[] = [];
  sessionId?: string;
  running = false;
  /** The last governed totals seen (context_governed), for the header. */
  governed?: { tokensBefore: number; tokensAfter: number; tokensSaved: number; elided: number };

  addUser(prompt: string): void {
    this.items.push({ kind: 'user', text: prompt });
    this.running = true;
  }

  /** Whether an event belongs to this chat (its session or a sub-agent of it). */
  owns(ev: SessionEvent, paramsSessionId?: string): boolean {
    const sid = paramsSessionId ?? ev.sessionId;
    if (!this.sessionId) {
      return this.running;
    }
    return sid === this.sessionId || ev.parentSessionId === this.sessionId;
  }

  apply(ev: SessionEvent): void {
    const d = ev.data ?? {};
    const child = !!ev.parentSessionId;
    if (!this.sessionId && !child && ev.sessionId && ev.type === 'run_started') {
      this.sessionId = ev.sessionId;
    }
    switch (ev.type) {
      case 'text_delta': {
        const last = this.items[this.items.length - 1];
        if (last && last.kind === 'assistant' && last.turn === d.turn && last.child === child) {
          last.text += String(d.text ?? '');
        } else {
          this.items.push({ kind: 'assistant', text: String(d.text ?? ''), turn: d.turn, child });
        }
        break;
      }
      case 'tool_started':
        this.items.push({ kind: 'tool', id: String(d.id), name: String(d.name), args: oneLine(d.arguments ?? '', 120), status: 'running', child });
        break;
      case 'tool_completed': {
        const item = this.items.find((i) => i.kind === 'tool' && i.id === String(d.id));
        if (item && item.kind === 'tool') {
          item.status = d.isError ? 'error' : 'ok';
          item.outcome = d.outcome;
          item.durationMs = d.durationMs;
          item.preview = typeof d.preview === 'string' ? d.preview : undefined;
        }
        break;
      }
      case 'approval_requested':
        this.request({ sessionId: ev.sessionId ?? '', callId: String(d.callId), tool: d.tool, effect: d.effect, summary: d.summary, paths: d.paths ?? [] });
        break;
      case 'approval_resolved': {
        const item = this.approval(String(d.callId));
        if (item) {
          item.decision = d.decision;
          item.source = d.source;
        }
        break;
      }
      case 'compaction_completed':
        this.items.push({ kind: 'status', text: `History compacted: ${d.before} → ${d.after} tokens`, level: 'info' });
        break;
      case 'context_governed':
        this.governed = { tokensBefore: d.tokensBefore, tokensAfter: d.tokensAfter, tokensSaved: d.tokensSaved, elided: d.elided };
        break;
      case 'run_failed':
        this.items.push({ kind: 'status', text: `${child ? 'Sub-agent failed' : 'Failed'}: ${d.error ?? 'error'} (${d.code ?? '?'})`, level: 'error' });
        if (!child) this.running = false;
        break;
      case 'run_cancelled':
        this.items.push({ kind: 'status', text: child ? 'Sub-agent cancelled' : 'Cancelled', level: 'error' });
        if (!child) this.running = false;
        break;
      case 'run_completed':
        if (!child) this.running = false;
        break;
      default:
        break; // unknown types are ignored (sessions.md §8.1)
    }
  }

  approval(callId: string): Extract<ChatItem, { kind: 'approval' }> | undefined {
    for (let i = this.items.length - 1; i >= 0; i--) {
      const it = this.items[i];
      if (it.kind === 'approval' && it.callId === callId) {
        return it;
      }
    }
    return undefined;
  }

  /** Records an approval question (from the event or the alisio/approve request, whichever comes first). */
  request(p: ApproveParams): void {
    const known = this.approval(p.callId);
    if (!known) {
      this.items.push({ kind: 'approval', callId: p.callId, tool: p.tool, effect: p.effect, summary: p.summary, paths: p.paths ?? [], preview: p.preview });
    } else if (p.preview && !known.preview) {
      known.preview = p.preview; // the event came first; the request carries the preview
    }
  }

  answer(callId: string, decision: Decision): void {
    const item = this.approval(callId);
    if (item && !item.decision) {
      item.decision = decision;
      item.source = 'user';
    }
  }

  finish(result: { sessionId?: string; status?: string } | undefined, error?: string): void {
    this.running = false;
    if (result?.sessionId) {
      this.sessionId = result.sessionId;
    }
    if (error) {
      this.items.push({ kind: 'status', text: error, level: 'error' });
    } else if (result?.status && result.status !== 'completed') {
      if (!this.items.some((i) => i.kind === 'status' && i === this.items[this.items.length - 1])) {
        this.items.push({ kind: 'status', text: `Run ${result.status}`, level: 'error' });
      }
    }
  }
}

export function renderChatHtml(m: ChatModel): string {
  const parts = m.items.map((it) => {
    switch (it.kind) {
      case 'user':
        return `<div class="msg user"><div class="who">You</div><div class="text">${escapeHtml(it.text)}</div></div>`;
      case 'assistant':
        return `<div class="msg assistant${it.child ? ' child' : ''}"><div class="who">${it.child ? 'Sub-agent' : 'Agent'}</div><div class="text">${escapeHtml(it.text)}</div></div>`;
      case 'tool': {
        const mark = it.status === 'running' ? '…' : it.status === 'ok' ? '✓' : '✗';
        const tail = it.status === 'running' ? '' : ` ${escapeHtml(it.outcome ?? '')}${it.durationMs !== undefined ? ` · ${it.durationMs} ms` : ''}`;
        const preview = it.preview ? `<details><summary>result</summary><pre>${escapeHtml(it.preview)}</pre></details>` : '';
        return `<div class="tool ${it.status}${it.child ? ' child' : ''}" data-call="${escapeHtml(it.id)}"><span class="mark">${mark}</span> <b>${escapeHtml(it.name)}</b> <code>${escapeHtml(it.args)}</code>${tail}${preview}</div>`;
      }
      case 'approval': {
        const paths = it.paths.length ? `<div class="paths">${it.paths.map(escapeHtml).join(', ')}</div>` : '';
        const body = it.decision
          ? `<span class="decision">${escapeHtml(it.decision)}${it.source && it.source !== 'user' ? ` (${escapeHtml(it.source)})` : ''}</span>`
          : `<button data-approve="allow-once" data-call="${escapeHtml(it.callId)}">Allow once</button>` +
            `<button data-approve="allow-session" data-call="${escapeHtml(it.callId)}">Allow for this session</button>` +
            `<button data-approve="deny" data-call="${escapeHtml(it.callId)}" class="secondary">Deny</button>`;
        const preview = renderPreviewHtml(it.callId, it.preview);
        return `<div class="approval" data-call="${escapeHtml(it.callId)}"><div><b>Approve ${escapeHtml(it.effect)}?</b> ${escapeHtml(it.summary)}</div>${paths}${preview}<div class="actions">${body}</div></div>`;
      }
      case 'status':
        return `<div class="status ${it.level}">${escapeHtml(it.text)}</div>`;
    }
  });
  const g = m.governed;
  const governed = g ? `<div class="governed">context: ${g.tokensBefore} → ${g.tokensAfter} tokens (${g.tokensSaved} saved, ${g.elided} elided)</div>` : '';
  const session = m.sessionId
    ? `<div class="session">Session <code>${escapeHtml(m.sessionId)}</code> · <a href="#" data-report="${escapeHtml(m.sessionId)}">Context Report</a></div>`
    : '';
  return session + governed + parts.join('');
}
