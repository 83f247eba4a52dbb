// The preview an `alisio/approve` request carries (docs/editors.md "Approvals with a preview"):
// the read-only virtual documents of a file diff, and the chat's HTML for every kind. Pure.
import type { ApprovalPreview, FilePreview, ProcessPreview } from '../lsp_ext';
import { escapeHtml } from './render';

export const PREVIEW_SCHEME = 'alisio-preview';
/** The proposed side of a write's review: a writable in-memory document (spec/sessions.md §4.4
 * "Review before a write"), so the diff editor lets the user change it. */
export const REVIEW_SCHEME = 'alisio-review';

export function isFilePreview(p: ApprovalPreview | undefined): p is FilePreview {
  return !!p && typeof (p as FilePreview).path === 'string';
}

export function isProcessPreview(p: ApprovalPreview | undefined): p is ProcessPreview {
  return !!p && typeof (p as ProcessPreview).command === 'string';
}

/** Whether the preview has both sides to diff. */
export function diffable(p: ApprovalPreview | undefined): p is FilePreview {
  return isFilePreview(p) && !p.truncated && typeof p.after === 'string';
}

/** The paths (scheme `alisio-preview`) of the two sides: `/<callId>/<side>/<path>`, so the
 * diff editor picks the language from the file name and the call is found from either side. */
export function previewPaths(callId: string, path: string): { before: string; after: string } {
  const rel = path.replace(/^\/+/, '');
  const id = encodeURIComponent(callId);
  return { before: `/${id}/before/${rel}`, after: `/${id}/after/${rel}` };
}

/** The call id of a preview document's path (undefined for any other path). */
export function callIdOf(path: string): string | undefined {
  const m = /^\/([^/]+)\/(before|after)\//.exec(path);
  return m ? decodeURIComponent(m[1]) : undefined;
}

export function diffTitle(p: FilePreview, tool: string): string {
  return `${p.path} ${p.before === null ? '(new file)' : '(current ↔ proposed)'} · ${tool} — approve?`;
}

/** What the reply to a write's approval carries (spec/sessions.md §4.4): the reviewed text as
 * `content` when it is not the proposal (a hunk rejected or a line typed), else nothing. */
export function reviewReply(decision: 'allow-once' | 'allow-session' | 'deny', proposal: string | null, reviewed: string | undefined): { decision: typeof decision; content?: string } {
  if (decision === 'deny' || reviewed === undefined || reviewed === proposal) return { decision };
  return { decision, content: reviewed };
}

/** `$ command args…` with arguments that need it quoted, as a reader would type it. */
export function commandLine(p: ProcessPreview): string {
  const q = (a: string) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`);
  return [p.command, ...(p.args ?? []).map(q)].join(' ');
}

/** The preview part of the chat's approval card. */
export function renderPreviewHtml(callId: string, p: ApprovalPreview | undefined): string {
  if (isFilePreview(p)) {
    if (p.truncated) {
      return `<div class="preview">${escapeHtml(p.path)}: the change is over 1 MiB; no preview is shown.</div>`;
    }
    const what = p.before === null ? 'new file' : 'edit';
    const lines = (s: string | null) => (s === null ? 0 : s.split('\n').length);
    return `<div class="preview">${escapeHtml(p.path)} (${what}, ${lines(p.before)} → ${lines(p.after)} lines) ` +
      `<a href="#" data-diff="${escapeHtml(callId)}">Show diff</a></div>`;
  }
  if (isProcessPreview(p)) {
    return `<div class="preview"><pre>$ ${escapeHtml(commandLine(p))}</pre>in ${escapeHtml(p.cwd)}</div>`;
  }
  return '';
}
