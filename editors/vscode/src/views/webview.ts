// The HTML shell of the extension's webviews: a strict Content-Security-Policy (no remote
// content, only the nonce'd inline script), VS Code theme colours, and a tiny script that
// swaps in the HTML the extension renders (render.ts, chatModel.ts) and forwards clicks.
import * as vscode from 'vscode';
import type { WebviewAssets } from './chartAssets';

function nonce(): string {
  const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let s = '';
  for (let i = 0; i < 32; i++) {
    s += chars.charAt(Math.floor(Math.random() * chars.length));
  }
  return s;
}

const STYLE = `
body { font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); color: var(--vscode-foreground); padding: 0 12px 12px; }
code, pre { font-family: var(--vscode-editor-font-family); }
table.segments, table.ledger { border-collapse: collapse; width: 100%; margin-top: 12px; }
table.ledger caption { text-align: left; font-weight: bold; }
table.segments th, table.segments td, table.ledger th, table.ledger td { border-bottom: 1px solid var(--vscode-panel-border, #8884); padding: 2px 8px; text-align: left; white-space: nowrap; }
table.segments td.origin { white-space: normal; min-width: 12ch; overflow-wrap: anywhere; }
.table-wrap { overflow-x: auto; }
svg.chart { max-width: 100%; height: auto; }
.replay-chart { margin: 8px 0; }
.replay-chart .u-legend { color: var(--vscode-foreground); }
.replay .note, .replay-none { opacity: .8; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.crit-low td { color: var(--vscode-descriptionForeground); }
tr.crit-pinned td:nth-child(5) { font-weight: bold; }
.charts { display: flex; flex-wrap: wrap; gap: 24px; margin: 12px 0; }
svg.chart text { fill: var(--vscode-foreground); font-size: 12px; }
svg.chart text.title { font-weight: bold; }
svg.chart rect.kind { fill: var(--vscode-charts-blue, #3794ff); }
svg.chart rect.saved { fill: var(--vscode-charts-green, #89d185); }
.msg { margin: 8px 0; }
.msg .who { font-weight: bold; opacity: .8; }
.msg .text { white-space: pre-wrap; }
.child { margin-left: 16px; opacity: .85; }
.tool { margin: 4px 0; }
.tool.error .mark { color: var(--vscode-errorForeground); }
.approval { border: 1px solid var(--vscode-inputValidation-warningBorder, #cca700); padding: 6px; margin: 6px 0; }
.approval .paths { opacity: .8; }
.approval button { margin: 4px 6px 0 0; }
.approval .preview { margin: 4px 0; }
.approval .preview pre { margin: 2px 0; white-space: pre-wrap; }
.status.error { color: var(--vscode-errorForeground); }
.sandbox { display: inline-block; font-size: .85em; padding: 0 6px; border-radius: 8px; margin: 4px 0; border: 1px solid var(--vscode-testing-iconPassed, #388a34); }
.sandbox.off { border-color: var(--vscode-errorForeground); }
.status.info, .governed, .session { opacity: .8; margin: 4px 0; }
button { background: var(--vscode-button-background); color: var(--vscode-button-foreground); border: none; padding: 4px 10px; cursor: pointer; }
button.secondary { background: var(--vscode-button-secondaryBackground); color: var(--vscode-button-secondaryForeground); }
button:disabled { opacity: .5; cursor: default; }
#prompt { width: 100%; box-sizing: border-box; min-height: 4em; background: var(--vscode-input-background); color: var(--vscode-input-foreground); border: 1px solid var(--vscode-input-border, #8884); }
.composer { position: sticky; bottom: 0; background: var(--vscode-editor-background); padding-top: 8px; }
.error-box { color: var(--vscode-errorForeground); }
.chip { display: inline-block; border: 1px solid var(--vscode-panel-border, #8884); border-radius: 3px; padding: 0 4px; margin: 2px 4px 2px 0; font-family: var(--vscode-editor-font-family); }
.attached { margin: 2px 0; }
.completions { border: 1px solid var(--vscode-panel-border, #8884); background: var(--vscode-editorSuggestWidget-background, var(--vscode-editor-background)); max-height: 12em; overflow-y: auto; }
.completions a { display: block; padding: 1px 6px; color: var(--vscode-foreground); text-decoration: none; font-family: var(--vscode-editor-font-family); }
.completions a:hover { background: var(--vscode-list-hoverBackground); }
.codeblock { border: 1px solid var(--vscode-panel-border, #8884); margin: 6px 0; }
.codeblock pre { margin: 0; padding: 6px; overflow-x: auto; background: var(--vscode-textCodeBlock-background); }
.code-actions { display: flex; gap: 6px; justify-content: flex-end; align-items: center; padding: 2px 4px; }
.code-actions .lang { margin-right: auto; opacity: .7; }
.code-actions button { padding: 1px 8px; }
.markdown p { margin: 4px 0; }
.sessions ul { margin: 4px 0; padding-left: 18px; }
.sessions .meta, .meter { opacity: .8; }
.retry { margin: 6px 0; }
.relay { margin: 6px 0; padding: 2px 6px; border-left: 3px solid var(--vscode-charts-purple, #b180d7); }
.mode.coordinator { display: inline-block; font-size: .85em; padding: 0 6px; border-radius: 8px; margin: 4px 4px 4px 0; border: 1px solid var(--vscode-charts-purple, #b180d7); }
.mode-choice { margin-left: 8px; opacity: .9; }
.changes { border-top: 1px solid var(--vscode-panel-border, #8884); margin-top: 10px; padding-top: 4px; }
.changes .change { margin: 4px 0; }
.changes .hunk { margin: 2px 0 2px 16px; }
.changes .hunk pre { margin: 2px 0; white-space: pre-wrap; }
.changes .status.added { color: var(--vscode-gitDecoration-addedResourceForeground, #81b88b); }
.changes .status.deleted { color: var(--vscode-gitDecoration-deletedResourceForeground, #c74e39); }
.changes .status.modified { color: var(--vscode-gitDecoration-modifiedResourceForeground, #e2c08d); }
.user-changed { color: var(--vscode-editorWarning-foreground, #cca700); }
.msg .who a.rewind { font-weight: normal; margin-left: 8px; font-size: .9em; }
.edited { opacity: .8; font-style: italic; }
.mode-choice select { background: var(--vscode-dropdown-background); color: var(--vscode-dropdown-foreground); border: 1px solid var(--vscode-dropdown-border, #8884); }
`;

/** Script: `{type: 'html', html}` replaces #root; clicks on [data-approve], [data-report] and
 * the composer post messages back. */
const SCRIPT = `
const vscode = acquireVsCodeApi();
const root = document.getElementById('root');
window.addEventListener('message', (e) => {
  const m = e.data;
  if (m.type === 'html') { root.innerHTML = m.html; if (m.scroll) window.scrollTo(0, document.body.scrollHeight); drawChart(m.chart); }
  if (m.type === 'attachments') { const a = document.getElementById('attachments'); if (a) a.innerHTML = m.html; }
  if (m.type === 'completions') { showCompletions(m.query, m.items); }
  if (m.type === 'prompt') { const p = document.getElementById('prompt'); if (p) { p.value = m.text; p.focus(); } }
  if (m.type === 'running') {
    const send = document.getElementById('send'); const cancel = document.getElementById('cancel');
    if (send) send.disabled = m.running; if (cancel) cancel.disabled = !m.running;
  }
});
document.addEventListener('click', (e) => {
  const t = e.target.closest('[data-approve],[data-report],[data-diff],[data-open],[data-sessions],[data-retry],[data-detach],[data-code],[data-complete],[data-rewind],[data-keep],[data-keep-all],[data-undo],[data-change-diff],#attach-open,#attach-active,#send,#cancel');
  if (!t) return;
  e.preventDefault();
  if (t.dataset.approve) { vscode.postMessage({ type: 'approve', callId: t.dataset.call, decision: t.dataset.approve }); }
  else if (t.dataset.report) { vscode.postMessage({ type: 'report', sessionId: t.dataset.report }); }
  else if (t.dataset.diff) { vscode.postMessage({ type: 'diff', callId: t.dataset.diff }); }
  else if (t.dataset.open) { vscode.postMessage({ type: 'open', sessionId: t.dataset.open }); }
  else if (t.dataset.sessions) { vscode.postMessage({ type: 'sessions' }); }
  else if (t.dataset.retry) { vscode.postMessage({ type: 'retry' }); }
  else if (t.dataset.detach !== undefined) { vscode.postMessage({ type: 'detach', index: Number(t.dataset.detach) }); }
  else if (t.dataset.code) { const c = t.closest('.codeblock').querySelector('code'); vscode.postMessage({ type: 'code', action: t.dataset.code, text: c ? c.textContent : '' }); }
  else if (t.dataset.complete !== undefined) { pickCompletion(t.dataset.complete); }
  else if (t.dataset.rewind !== undefined) { vscode.postMessage({ type: 'rewind', checkpoint: Number(t.dataset.rewind) }); }
  else if (t.dataset.keepAll !== undefined) { vscode.postMessage({ type: 'keep' }); }
  else if (t.dataset.keep !== undefined) { vscode.postMessage({ type: 'keep', path: t.dataset.keep }); }
  else if (t.dataset.undo !== undefined) { vscode.postMessage({ type: 'undo', path: t.dataset.undo, hunk: t.dataset.hunkIndex }); }
  else if (t.dataset.changeDiff !== undefined) { vscode.postMessage({ type: 'changeDiff', path: t.dataset.changeDiff }); }
  else if (t.id === 'attach-open') { vscode.postMessage({ type: 'attachOpen' }); }
  else if (t.id === 'attach-active') { vscode.postMessage({ type: 'attachActive' }); }
  else if (t.id === 'send') { const p = document.getElementById('prompt'); if (p.value.trim()) { vscode.postMessage({ type: 'send', prompt: p.value }); p.value = ''; } }
  else if (t.id === 'cancel') { vscode.postMessage({ type: 'cancel' }); }
});
// '@path' completion in the prompt box: the word at the caret that starts with '@' is sent to
// the extension, which answers with matching workspace files.
function mentionAt(p) {
  const before = p.value.slice(0, p.selectionStart);
  const m = /(^|\\s)@([^\\s@]*)$/.exec(before);
  return m ? { start: before.length - m[2].length, query: m[2] } : undefined;
}
function showCompletions(query, items) {
  const box = document.getElementById('completions'); const p = document.getElementById('prompt');
  const at = p && mentionAt(p);
  if (!box) return;
  box.textContent = '';
  if (!at || at.query !== query || !items.length) { box.hidden = true; return; }
  for (const it of items) { const a = document.createElement('a'); a.href = '#'; a.dataset.complete = it; a.textContent = it; box.appendChild(a); }
  box.hidden = false;
}
function pickCompletion(path) {
  const p = document.getElementById('prompt'); const at = mentionAt(p); const box = document.getElementById('completions');
  if (box) box.hidden = true;
  if (!at) return;
  p.value = p.value.slice(0, at.start) + path + ' ' + p.value.slice(p.selectionStart);
  p.focus();
}
document.addEventListener('input', (e) => {
  if (e.target.id !== 'prompt') return;
  const at = mentionAt(e.target);
  if (at) vscode.postMessage({ type: 'complete', query: at.query });
  else { const box = document.getElementById('completions'); if (box) box.hidden = true; }
});
document.addEventListener('change', (e) => {
  if (e.target.id === 'mode') vscode.postMessage({ type: 'mode', mode: e.target.value });
});
document.addEventListener('keydown', (e) => {
  if (e.target.id === 'prompt' && e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { document.getElementById('send').click(); }
});
// The Context Report's replay chart (chart.ts): drawn into #replay-chart by the shared code of
// governor analyze --html (window.alisioReplayChart, present only in the report panel).
// The previous drawing is destroyed first (uPlot's listeners), the new request drawn with the rest.
let plot;
function drawChart(chart) {
  if (plot) { plot.destroy(); plot = undefined; }
  const box = document.getElementById('replay-chart');
  if (!chart || !box || typeof window.alisioReplayChart !== 'function') return;
  const fg = getComputedStyle(document.body).color;
  const width = Math.max(320, Math.min(1100, root.clientWidth - 8));
  plot = window.alisioReplayChart(box, chart, { axisColor: fg, gridColor: 'rgba(128,128,128,0.25)', width, height: 280 }).plot;
}
vscode.postMessage({ type: 'ready' });
`;

/** `assets`: more scripts (run under the nonce, before the view's script) and style, such as
 * the replay chart's (chartAssets.ts). */
export function webviewHtml(webview: vscode.Webview, title: string, body: string, composer: boolean, assets?: WebviewAssets): string {
  const n = nonce();
  const extra = (assets?.scripts ?? []).map((s) => `<script nonce="${n}">${s}</script>`).join('');
  const extraStyle = assets ? `<style>${assets.style}</style>` : '';
  const csp = `default-src 'none'; img-src ${webview.cspSource} data:; style-src 'unsafe-inline'; script-src 'nonce-${n}';`;
  const composerHtml = composer
    ? `<div class="composer"><div id="attachments" class="attached"></div><div id="completions" class="completions" hidden></div>` +
      `<textarea id="prompt" placeholder="Ask the agent (@path attaches a file; Ctrl+Enter to send)"></textarea>` +
      `<div><button id="send">Send</button> <button id="cancel" class="secondary" disabled>Stop</button> ` +
      `<button id="attach-active" class="secondary" title="Attach the file of the editor used last (unsaved text counts)">Add Active File</button> ` +
      `<button id="attach-open" class="secondary" title="Attach every open text editor (unsaved text counts)">Attach All Open Editors</button>` +
      `<label class="mode-choice">Mode <select id="mode" title="spec/sessions.md §12.1: a coordinator delegates writes and processes to sub-sessions">` +
      `<option value="" selected>as configured (session.mode)</option><option value="default">default</option><option value="coordinator">coordinator</option></select></label></div></div>`
    : '';
  return `<!DOCTYPE html><html lang="en"><head><meta charset="UTF-8"><meta http-equiv="Content-Security-Policy" content="${csp}">` +
    `<meta name="viewport" content="width=device-width, initial-scale=1.0"><title>${title}</title>${extraStyle}<style>${STYLE}</style></head>` +
    `<body><div id="root">${body}</div>${composerHtml}${extra}<script nonce="${n}">${SCRIPT}</script></body></html>`;
}
