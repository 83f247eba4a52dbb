// The agent chat's transcript as the user sees it, built from the session events of
// spec/sessions.md §8 (the envelopes `alisio/sessionEvent` carries) and the approval requests of
// spec/sessions.md §4.4. Pure: the webview (chat.ts) renders `renderChatHtml(model)`.
import type { Attachment, Change, CheckpointInfo, RewindResult, SessionSummary, Transcript } from '../lsp_ext';
import { hunkText } from './hunks';
import { renderMarkdown } from './markdown';
import { renderPreviewHtml } from './preview';
import { escapeHtml } from './render';
import type { ChatItem } from './chatItem';
import { oneLine } from './chatItem';
import { transcriptItems } from './transcript';

import type { ApproveParams, Decision, SessionEvent } from '../lsp_ext';

export type { ApproveParams, Decision, SessionEvent };
export type SessionMode = 'default' | 'coordinator';
export type { ChatItem } from './chatItem';
export { oneLine };

export class ChatModel {
  items: ChatItem[] = [];
  sessionId?: string;
  running = false;
  /** The process sandbox of the last run (spec/sessions.md §10.4): run_started.sandbox, sandbox_unavailable. */
  sandbox?: { mode: string; network: boolean; unavailable?: string };
  /** The last governed totals seen (context_governed), for the context meter. */
  governed?: { tokensBefore: number; tokensAfter: number; tokensSaved: number; elided: number; cachedTokens?: number };
  /** The last prompt sent, for Retry. */
  last?: { prompt: string; attachments: PendingAttachment[] };
  /** Earlier sessions of the workspace, shown while the chat is empty. */
  sessions?: SessionSummary[];
  /** The session mode chosen in the chat (spec/sessions.md §12.1): undefined sends none, so
   * the configuration's `session.mode` (or a resumed session's stored mode) applies. */
  mode?: SessionMode;
  /** The mode the shown session ran in, when known (its stored `options.mode`). */
  sessionMode?: SessionMode;
  /** The files the session changed (spec/sessions.md §13.4), for the Changes view. */
  changes?: Change[];
  /** What the composer's chips add to the next request, once their text is read. */
  chipTokens?: number;

  /** Puts the session's checkpoints (spec/sessions.md §13.3) on the user messages they were
   * recorded before: the active checkpoints with a prompt, matched from the newest back by the
   * prompt's text (messages of another link of a relay chain get none). */
  assignCheckpoints(list: CheckpointInfo[]): void {
    const cps = list.filter((c) => c.active && c.promptSeq !== null && c.prompt !== null);
    const users = this.items.filter((i): i is Extract<ChatItem, { kind: 'user' }> => i.kind === 'user');
    for (const u of users) u.checkpoint = undefined;
    let c = cps.length - 1;
    for (let i = users.length - 1; i >= 0 && c >= 0; i--) {
      if (users[i].text === cps[c].prompt) {
        users[i].checkpoint = cps[c].checkpoint;
        c--;
      }
    }
  }

  addUser(prompt: string, attachments: PendingAttachment[] = []): void {
    this.items.push({ kind: 'user', text: prompt, attachments: attachments.map((a) => a.label) });
    this.last = { prompt, attachments };
    this.running = true;
  }

  /** Shows an earlier session; the next prompt continues it. */
  load(sessionId: string, t: Transcript): void {
    this.sessionId = sessionId;
    this.items = transcriptItems(t);
    this.sessions = undefined;
    const mode = (t.session?.options as { mode?: unknown } | undefined)?.mode;
    this.sessionMode = mode === 'coordinator' || mode === 'default' ? mode : undefined;
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
    // The protocol declares `data` as unknown values (its shape differs by `type`); read here loosely.
    const d = (ev.data ?? {}) as Record<string, any>;
    const child = !!ev.parentSessionId;
    if (!this.sessionId && !child && ev.sessionId && ev.type === 'run_started') {
      this.sessionId = ev.sessionId;
    }
    switch (ev.type) {
      case 'run_started':
        if (!child) this.sandbox = d.sandbox ? { mode: String(d.sandbox.mode), network: !!d.sandbox.network } : undefined;
        if (!child && this.mode) this.sessionMode = this.mode;
        break;
      case 'session_relayed':
        // spec/sessions.md §12.5: the run goes on in a new root session; the chat follows it.
        if (!child && typeof d.to === 'string') {
          this.items.push({ kind: 'relay', from: ev.sessionId ?? this.sessionId ?? '', to: d.to });
          this.sessionId = d.to;
        }
        break;
      case 'sandbox_unavailable':
        this.sandbox = { mode: 'off', network: true, unavailable: String(d.reason ?? '') };
        this.items.push({ kind: 'status', text: `Sandbox ${d.requested} unavailable (${d.reason}): processes run unsandboxed`, level: 'error' });
        break;
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
        if (!child) {
          // The request's cached part is in its replay figures (ContextGovernedData.replay).
          const c = d.replay?.governed?.cachedTokens;
          const cached = typeof c === 'number' ? c : undefined;
          this.governed = { tokensBefore: d.tokensBefore, tokensAfter: d.tokensAfter, tokensSaved: d.tokensSaved, elided: d.elided, cachedTokens: cached };
        }
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
        break; // unknown types are ignored (spec/sessions.md §8.1)
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

/** An attachment waiting for the next prompt: what is sent, and how the chat names it. */
export interface PendingAttachment extends Attachment {
  label: string;
}

function pct(part: number, whole: number): string {
  return whole > 0 ? `${Math.round((part / whole) * 100)}%` : '0%';
}

/** The live context meter: what the next request costs, and what the governor saved. */
export function renderMeter(g: ChatModel['governed'], chipTokens?: number): string {
  const chips = chipTokens ? ` + <b data-k="chips">${chipTokens}</b> for the chips` : '';
  if (!g) return chips ? `<div class="governed meter" title="The attachment blocks of the chips, as the server estimates tokens">Next request:${chips}</div>` : '';
  const cached = g.cachedTokens !== undefined ? ` · cached ${pct(g.cachedTokens, g.tokensAfter)}` : '';
  return `<div class="governed meter" title="From the last context_governed event">Next request: <b>${g.tokensAfter}</b> tokens${chips} · ` +
    `saved ${pct(g.tokensSaved, g.tokensBefore)} (${g.tokensSaved} of ${g.tokensBefore}, ${g.elided} elided)${cached}</div>`;
}

function when(iso?: string): string {
  if (!iso) return '';
  return iso.replace('T', ' ').replace(/\.\d+Z?$|Z$/, '');
}

export function renderSessionsHtml(list: SessionSummary[] | undefined): string {
  if (!list) return '';
  if (!list.length) return '<div class="sessions status info">No earlier sessions in this workspace.</div>';
  // The relay chain (spec/sessions.md §12.5): a link names the session it continues and the
  // one it handed over to, each a link that opens it.
  const link = (id: string) => `<a href="#" data-open="${escapeHtml(id)}">${escapeHtml(id)}</a>`;
  const rows = list.map((s) =>
    `<li data-session="${escapeHtml(s.sessionId)}"><a href="#" data-open="${escapeHtml(s.sessionId)}">${escapeHtml(s.title || s.sessionId)}</a> ` +
    `<span class="meta">${escapeHtml(when(s.updatedAt))} · ${s.messages ?? 0} messages</span>` +
    `${s.relayOf ? ` <span class="relay-of">(relay of ${link(s.relayOf)})</span>` : ''}` +
    `${s.relayedTo ? ` <span class="relayed-to">→ relayed to ${link(s.relayedTo)}</span>` : ''}</li>`);
  return `<div class="sessions"><div class="who">Earlier sessions</div><ul>${rows.join('')}</ul></div>`;
}

export function renderChatHtml(m: ChatModel): string {
  const parts = m.items.map((it) => {
    switch (it.kind) {
      case 'user':
        {
          const att = it.attachments?.length ? `<div class="attached">${it.attachments.map((a) => `<span class="chip">${escapeHtml(a)}</span>`).join(' ')}</div>` : '';
          const rewind = it.checkpoint !== undefined && !m.running ? ` <a href="#" class="rewind" data-rewind="${it.checkpoint}" title="Restore the files and the conversation to before this message">Rewind to here</a>` : '';
          return `<div class="msg user"${it.checkpoint !== undefined ? ` data-checkpoint="${it.checkpoint}"` : ''}><div class="who">You${rewind}</div>${att}<div class="text">${escapeHtml(it.text)}</div></div>`;
        }
      case 'assistant':
        return `<div class="msg assistant${it.child ? ' child' : ''}"><div class="who">${it.child ? 'Sub-agent' : 'Agent'}</div><div class="markdown">${renderMarkdown(it.text)}</div></div>`;
      case 'tool': {
        const mark = it.status === 'running' ? '…' : it.status === 'ok' ? '✓' : '✗';
        const tail = it.status === 'running' ? '' : ` ${escapeHtml(it.outcome ?? '')}${it.durationMs !== undefined ? ` · ${it.durationMs} ms` : ''}`;
        const preview = it.preview ? `<details><summary>result</summary><pre>${escapeHtml(it.preview)}</pre></details>` : '';
        return `<div class="tool ${it.status}${it.child ? ' child' : ''}" data-call="${escapeHtml(it.id)}"><span class="mark">${mark}</span> <b>${escapeHtml(it.name)}</b> <code>${escapeHtml(it.args)}</code>${tail}${preview}</div>`;
      }
      case 'approval': {
        const paths = it.paths.length ? `<div class="paths">${it.paths.map(escapeHtml).join(', ')}</div>` : '';
        const body = it.decision
          ? `<span class="decision">${escapeHtml(it.decision)}${it.source && it.source !== 'user' ? ` (${escapeHtml(it.source)})` : ''}</span>` +
            (it.edited ? ` <span class="edited">with your changes to the proposal</span>` : '')
          : `<button data-approve="allow-once" data-call="${escapeHtml(it.callId)}">Allow once</button>` +
            `<button data-approve="allow-session" data-call="${escapeHtml(it.callId)}">Allow for this session</button>` +
            `<button data-approve="deny" data-call="${escapeHtml(it.callId)}" class="secondary">Deny</button>`;
        const preview = renderPreviewHtml(it.callId, it.preview);
        return `<div class="approval" data-call="${escapeHtml(it.callId)}"><div><b>Approve ${escapeHtml(it.effect)}?</b> ${escapeHtml(it.summary)}</div>${paths}${preview}<div class="actions">${body}</div></div>`;
      }
      case 'status':
        return `<div class="status ${it.level}">${escapeHtml(it.text)}</div>`;
      case 'relay':
        return `<div class="relay" data-from="${escapeHtml(it.from)}" data-to="${escapeHtml(it.to)}">↪ Relay: the context is nearly full; continuing in session <code>${escapeHtml(it.to)}</code></div>`;
    }
  });
  const governed = renderMeter(m.governed, m.chipTokens);
  const session = m.sessionId
    ? `<div class="session">Session <code>${escapeHtml(m.sessionId)}</code> · <a href="#" data-report="${escapeHtml(m.sessionId)}">Context Report</a> · <a href="#" data-sessions="1">Sessions</a></div>`
    : `<div class="session"><a href="#" data-sessions="1">Sessions</a></div>`;
  const sb = m.sandbox;
  const sandbox = sb
    ? `<div class="sandbox ${sb.mode === 'off' ? 'off' : 'on'}" title="${escapeHtml(sb.unavailable ?? 'process sandbox')}">${sb.mode === 'off' ? 'no sandbox' : `sandbox: ${escapeHtml(sb.mode)}${sb.network ? ' + network' : ''}`}</div>`
    : '';
  const mode = m.sessionMode === 'coordinator' ? `<div class="mode coordinator" title="spec/sessions.md §12.1: the root delegates writes and processes to sub-sessions">coordinator session</div>` : '';
  const retry = !m.running && m.last ? `<div class="retry"><button data-retry="1" class="secondary">Retry</button></div>` : '';
  const sessions = m.items.length === 0 || m.sessions ? renderSessionsHtml(m.sessions) : '';
  return session + mode + sandbox + governed + sessions + parts.join('') + renderChangesHtml(m.changes) + retry;
}

/** The Changes view (spec/sessions.md §13.4): each file the session changed with Keep and
 * Undo, and each hunk with its lines and Undo hunk. Nothing while there is no change. */
export function renderChangesHtml(changes: Change[] | undefined): string {
  if (!changes?.length) return '';
  const files = changes.map((c) => {
    const p = escapeHtml(c.path);
    const note = c.userChanged ? ` <span class="user-changed" title="Undo is refused: it would overwrite your changes">changed by you since</span>` : '';
    const hunks = c.truncated
      ? `<div class="hunk none">No text to show (over 1 MiB or not UTF-8): keep or undo the whole file.</div>`
      : c.hunks.map((h, i) =>
        `<div class="hunk" data-hunk="${i}"><pre>${escapeHtml(hunkText(c.before, c.after, h))}</pre>` +
        `<button class="secondary" data-undo="${p}" data-hunk-index="${i}">Undo hunk</button></div>`).join('');
    return `<div class="change" data-path="${p}"><div class="file"><span class="status ${c.status}">${c.status}</span> <code>${p}</code>${note} ` +
      `<a href="#" data-change-diff="${p}">Diff</a> <button data-keep="${p}">Keep</button> <button class="secondary" data-undo="${p}">Undo</button></div>${hunks}</div>`;
  });
  return `<div class="changes"><div class="who">Changes · ${changes.length} file${changes.length === 1 ? '' : 's'} <button data-keep-all="1" class="secondary">Keep all</button></div>${files.join('')}</div>`;
}

/** One line of the chat after a rewind: what was restored, kept or could not be. */
export function rewindSummary(r: RewindResult): { text: string; level: 'info' | 'error' } {
  const verbs: Record<string, string> = { restore: 'restored', create: 'recreated', delete: 'deleted' };
  const done = r.files.filter((f) => !r.kept.includes(f.path) && !r.failed.includes(f.path) && !r.unrestorable.includes(f.path));
  const files = done.length ? done.map((f) => `${verbs[f.action] ?? f.action} ${f.path}`).join(', ') : 'no file changed';
  const parts = [`Rewound to checkpoint ${r.checkpoint}: ${files}`];
  if (r.kept.length) parts.push(`kept your version of ${r.kept.join(', ')}`);
  if (r.unrestorable.length) parts.push(`not restorable (not kept: over the snapshot size cap) ${r.unrestorable.join(', ')}`);
  if (r.failed.length) parts.push(`failed (changed while rewinding) ${r.failed.join(', ')}`);
  parts.push(`${r.messages.removed} message${r.messages.removed === 1 ? '' : 's'} rewound`);
  return { text: parts.join('; ') + '.', level: r.unrestorable.length || r.failed.length ? 'error' : 'info' };
}

/** The text part the server makes of an attachment (spec/sessions.md §4.6), for its cost. */
export function attachmentBlock(path: string, text: string, lines?: [number, number]): string {
  const attr = path.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
  const body = text.endsWith('\n') ? text : text + '\n';
  return `<attachment path="${attr}"${lines ? ` lines="${lines[0]}-${lines[1]}"` : ''}>\n${body}</attachment>\n\n`;
}

/** tokens = ceil(UTF-16 length / 4), the server's estimate (spec/governor.md §10). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** The composer's chips (persistent until removed) and what they add to the next request. */
export function renderChipsHtml(chips: { label: string; tokens?: number }[]): string {
  if (!chips.length) return '';
  const html = chips.map((a, i) => `<span class="chip">${escapeHtml(a.label)} <a href="#" data-detach="${i}" title="Remove">×</a></span>`).join(' ');
  const known = chips.every((c) => c.tokens !== undefined);
  const total = chips.reduce((n, c) => n + (c.tokens ?? 0), 0);
  return html + (known ? ` <span class="chip-cost meter" data-tokens="${total}">chips: +${total} tokens with each prompt</span>` : '');
}
