// Pure renderers for the extension's views: the explain document (spec/interfaces.md §1.1), skill
// catalog labels (spec/interfaces.md §1.2) and the Context Report (spec/governor.md §6) as HTML with plain SVG bar
// charts; the report's replay chart is drawn in the webview by the shared uPlot code (chart.ts, chartAssets.ts).
// No `vscode` import: unit-tested in plain Node.
import type { ContextReport, ExplainFile, ExplainResult, Figures, Recorded, Replay, Segment, SkillEntry, StartupCost, UsageLedger } from '../lsp_ext';
import { replayChart } from './chart';

// The protocol's shapes are declared once, in lsp_ext.ts.
export type { ContextReport, ExplainFile, ExplainResult, Segment, SkillEntry, UsageLedger };

/** The usage ledger as a table: per tool, results seen, used, re-read, and unused (the rest). */
export function renderUsageHtml(u: UsageLedger | null | undefined): string {
  if (!u || typeof u !== 'object' || !u.perTool) return '';
  if (Object.keys(u.perTool).length === 0) return `<div class="usage"><p>Usage ledger: no attributable tool results yet; ${u.notAttributable ?? 0} not attributable.</p></div>`;
  const rows = Object.entries(u.perTool)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([tool, c]) => {
      const unused = Math.max(0, (c.seen ?? 0) - (c.used ?? 0) - (c.reread ?? 0));
      return `<tr><td>${escapeHtml(tool)}</td><td class="num">${c.seen ?? 0}</td><td class="num">${c.used ?? 0}</td><td class="num">${c.reread ?? 0}</td><td class="num">${unused}</td></tr>`;
    })
    .join('');
  return (
    `<div class="table-wrap usage"><table class="ledger"><caption>Tool results used by the model (usage ledger)</caption>` +
    `<thead><tr><th>tool</th><th>seen</th><th>used</th><th>reread</th><th>unused</th></tr></thead><tbody>${rows}</tbody></table>` +
    `<p>${u.notAttributable ?? 0} results not attributable</p></div>`
  );
}

/** The policy-1 elision reasons of spec/governor.md §6.4, listed when a report has no `byReason`. */
export const ELISION_REASONS = ['superseded_read', 'stale_bg_output', 'duplicate_search'];

/** Every reason the report carries, in its order (spec/governor.md §6.4: policy 2 adds four). */
export function reasonsOf(r: ContextReport): string[] {
  const keys = Object.keys(r.totals?.byReason ?? {});
  return keys.length > 0 ? keys : ELISION_REASONS;
}

export function escapeHtml(s: unknown): string {
  return String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}

function escapeCell(s: unknown): string {
  return String(s ?? '').replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

export function renderExplainMarkdown(r: ExplainResult): string {
  const lines = [`# Instructions for ${r.path}`, '', `Host \`${r.host}\`, budget ${r.maxBytes} bytes.`, ''];
  if (!r.files || r.files.length === 0) {
    lines.push(`No instruction file applies to ${r.path}.`);
    return lines.join('\n') + '\n' + renderStartupMarkdown(r.startup);
  }
  lines.push('| # | file | scope | kind | bytes | kept | truncation |', '|---|---|---|---|---:|---:|---|');
  r.files.forEach((f, i) => {
    lines.push(`| ${i + 1} | ${escapeCell(f.path)} | ${f.scope} | ${f.kind} | ${f.bytes} | ${f.keptBytes} | ${f.truncation} |`);
  });
  lines.push('');
  if (r.omittedBytes && r.omittedBytes > 0) {
    lines.push(`Omitted: ${r.omittedBytes} bytes.`, '');
  }
  if (r.notice) {
    lines.push('Notice the model sees:', '', '```text', r.notice, '```', '');
  }
  lines.push('The closest file wins on conflicts.');
  return lines.join('\n') + '\n' + renderStartupMarkdown(r.startup);
}

/** The startup cost table of the Explain view: the rows of `context explain`'s table
 * (spec/interfaces.md §1.1); nothing for a host whose families are not simulated. */
export function renderStartupMarkdown(s: StartupCost | null | undefined): string {
  if (!s) {
    return '';
  }
  const lines = ['', `## Startup cost (host \`${s.host}\`)`, '', 'What the host sends before the first prompt for subagents, slash commands and MCP servers.', ''];
  const rows: string[] = [];
  for (const f of s.families) {
    for (const e of f.entries) {
      const bytes = e.loaded ? (e.text === null ? 'tools at connect' : String(e.bytes)) : 'not sent';
      const file = e.shadowedBy ? `${e.file} (shadowed by ${e.shadowedBy})` : e.hidden ? `${e.file} (${e.hidden})` : e.file;
      rows.push(`| ${f.family} | ${escapeCell(e.name)} | ${bytes} | ${f.channel} | ${escapeCell(file)} |`);
    }
  }
  for (const f of s.families) {
    for (const n of f.notLoaded) {
      rows.push(`| ${f.family} | - | not loaded | ${escapeCell(n.reason)} | ${escapeCell(n.file)} |`);
    }
  }
  if (rows.length === 0) {
    lines.push('No subagents, commands or MCP servers.');
    return lines.join('\n') + '\n';
  }
  lines.push('| family | name | bytes | sent in | file |', '|---|---|---:|---|---|', ...rows, '');
  lines.push(`Total: ${s.bytes} bytes (~${s.tokens} tokens); MCP tool definitions come from each server when it connects and are not counted.`);
  return lines.join('\n') + '\n';
}

export function skillStatus(s: SkillEntry): string {
  if (s.shadowedBy) {
    return `shadowed by ${s.shadowedBy}`;
  }
  if (!s.enabled) {
    return 'disabled';
  }
  return s.effective ? 'effective' : 'not effective';
}

/** The QuickPick line of a catalog entry. */
export function skillItem(s: SkillEntry): { label: string; description: string; detail: string } {
  const tokens = s.approximateTokens !== undefined ? ` · ~${s.approximateTokens} tokens` : '';
  return {
    label: s.displayId ?? s.id,
    description: `${s.scope} · ${skillStatus(s)}${tokens}`,
    detail: s.description ?? '',
  };
}

export interface Bar {
  label: string;
  value: number;
  note?: string;
}

/** A horizontal bar chart as a self-contained SVG string (no chart library). */
export function barChart(title: string, bars: Bar[], cssClass: string): string {
  const rowH = 22;
  const labelW = 130;
  const barW = 200;
  const width = labelW + barW + 120;
  const height = 28 + bars.length * rowH;
  const max = Math.max(0, ...bars.map((b) => b.value));
  const rows = bars
    .map((b, i) => {
      const y = 24 + i * rowH;
      const w = max > 0 ? Math.max(b.value > 0 ? 2 : 0, Math.round((b.value / max) * barW)) : 0;
      const note = b.note ? ` ${escapeHtml(b.note)}` : '';
      return (
        `<g class="row" data-label="${escapeHtml(b.label)}" data-value="${b.value}">` +
        `<text x="0" y="${y + 14}" class="label">${escapeHtml(b.label)}</text>` +
        `<rect x="${labelW}" y="${y + 3}" width="${w}" height="${rowH - 8}" class="bar ${cssClass}"></rect>` +
        `<text x="${labelW + w + 6}" y="${y + 14}" class="value">${b.value}${note}</text></g>`
      );
    })
    .join('');
  return (
    `<svg class="chart" role="img" aria-label="${escapeHtml(title)}" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" xmlns="http://www.w3.org/2000/svg">` +
    `<text x="0" y="14" class="title">${escapeHtml(title)}</text>${rows}</svg>`
  );
}

/** Tokens per segment kind, over the listed segments, in order of first appearance. */
export function tokensByKind(r: ContextReport): Bar[] {
  const sums = new Map<string, number>();
  for (const s of r.segments ?? []) {
    sums.set(s.kind, (sums.get(s.kind) ?? 0) + (s.tokens ?? 0));
  }
  return [...sums].map(([label, value]) => ({ label, value }));
}

/** Tokens saved per elision reason (from the listed segments) with the result counts of totals. */
export function savedByReason(r: ContextReport): Bar[] {
  const saved = new Map<string, number>(reasonsOf(r).map((k) => [k, 0]));
  for (const s of r.segments ?? []) {
    if (s.elided) {
      saved.set(s.elided.reason, (saved.get(s.elided.reason) ?? 0) + (s.elided.tokensSaved ?? 0));
    }
  }
  return [...saved].map(([label, value]) => {
    const n = r.totals?.byReason?.[label] ?? 0;
    return { label, value, note: `(${n} result${n === 1 ? '' : 's'})` };
  });
}

export function renderReportHtml(r: ContextReport): string {
  if (!r.measured || r.mode === 'off') {
    return (
      `<p class="off">The Context Governor is <b>off</b> for session <code>${escapeHtml(r.sessionId)}</code>: nothing is measured. ` +
      `Set <code>alisio.context.governor</code> to <code>shadow</code> or <code>on</code> to see the report.</p>`
    );
  }
  const t = r.totals;
  const summary = [
    `<h2>Session <code>${escapeHtml(r.sessionId)}</code></h2>`,
    `<p class="summary">mode <b>${escapeHtml(r.mode)}</b> · request ${escapeHtml(r.request ?? '–')} · ${escapeHtml(r.messages ?? 0)} messages (${escapeHtml(r.eligibleMessages ?? 0)} eligible)` +
      `${r.compacted ? ' · compacted' : ''}</p>`,
  ];
  if (t) {
    summary.push(
      `<p class="totals">tokens before <b data-k="tokensBefore">${t.tokensBefore}</b> · saved <b data-k="tokensSaved">${t.tokensSaved}</b> · after <b data-k="tokensAfter">${t.tokensAfter}</b> · ` +
        `${t.elided} elided result${t.elided === 1 ? '' : 's'} · ${t.segments} segments${r.segmentsOmitted ? ` (${r.segmentsOmitted} not listed)` : ''}</p>`,
    );
    const c = t.byCriticality ?? {};
    summary.push(`<p class="criticality">pinned ${c.pinned ?? 0} · high ${c.high ?? 0} · normal ${c.normal ?? 0} · low ${c.low ?? 0}</p>`);
  }
  if (r.invariants) {
    summary.push(`<p class="invariants">invariants block: ${r.invariants.sent ? 'sent' : 'not sent'} · ${r.invariants.total} items · ${r.invariants.omitted} omitted</p>`);
  }
  const charts =
    `<div class="charts">${barChart('Tokens by kind' + (r.segmentsOmitted ? ' (listed segments)' : ''), tokensByKind(r), 'kind')}` +
    `${barChart('Tokens saved by reason', savedByReason(r), 'saved')}</div>`;
  const rows = (r.segments ?? [])
    .map((s) => {
      const elided = s.elided ? `${escapeHtml(s.elided.reason)}${s.elided.by ? ` by ${escapeHtml(s.elided.by)}` : ''} (−${s.elided.tokensSaved})` : '';
      return (
        `<tr class="crit-${escapeHtml(s.criticality)}"><td class="num">${s.index}</td><td>${escapeHtml(s.kind)}</td><td class="origin">${escapeHtml(s.origin)}</td>` +
        `<td class="num">${s.tokens}</td><td>${escapeHtml(s.criticality)}</td><td>${escapeHtml(s.reason)}</td><td>${elided}</td></tr>`
      );
    })
    .join('');
  const table =
    `<div class="table-wrap"><table class="segments"><thead><tr><th>#</th><th>kind</th><th>origin</th><th>tokens</th><th>criticality</th><th>reason</th><th>elided</th></tr></thead>` +
    `<tbody>${rows}</tbody></table></div>`;
  return summary.join('') + renderReplayHtml(r.replay) + charts + table + renderUsageHtml(r.usage);
}

/** The report's replay section: a table of the streams' figures and the chart's box (drawn in
 * the webview by the shared chart code), or why there is no chart yet. */
export function renderReplayHtml(rp: Replay | null | undefined): string {
  const title = '<h3>Input tokens per request (cache-aware replay)</h3>';
  if (!replayChart(rp) || !rp) {
    return `<div class="replay">${title}<p class="replay-none">No request of this session has been replayed yet: the chart appears with its first governed request.</p></div>`;
  }
  const streams: [string, Figures][] = [['off', rp.off], ['governed', rp.governed], ...(rp.baselines ?? []).map((b): [string, Figures] => [b.name, b])];
  const rows = streams
    .map(([n, f]) => `<tr data-stream="${escapeHtml(n)}"><td>${escapeHtml(n)}</td><td class="num">${f.inputTokens}</td><td class="num">${f.cachedTokens}</td><td class="num">${Math.round(f.cost)}</td><td class="num">${f.cacheBreaks}</td></tr>`)
    .join('');
  return (
    `<div class="replay">${title}<p class="note">${rp.requests} request${rp.requests === 1 ? '' : 's'} of this session: input tokens as sent (off) and as governed, the part a prompt cache serves shaded. A replay estimates the saving; it cannot show how a model reacts to a stub.</p>` +
    `<div id="replay-chart" class="replay-chart"></div>` +
    `<div class="table-wrap"><table class="ledger replay-figures"><thead><tr><th>stream</th><th>input tokens</th><th>cached</th><th>cost</th><th>cache breaks</th></tr></thead><tbody>${rows}</tbody></table></div>` +
    renderRecordedHtml(rp.recorded) +
    `</div>`
  );
}

const share = (a: number, b: number): string => (b > 0 ? (a / b).toFixed(3) : '-');

/** The recorded bill of a live session (spec/governor.md §11.11): the sentence `sessions report`
 * prints (`recorded::live_line`), word for word. */
export function recordedLine(b: Recorded): string {
  const shadow = b.shadowSaved ? `, ${b.shadowSaved.toFixed(1)} of it in shadow requests (not sent, no recovery charged)` : '';
  const other = b.otherRequests
    ? `, ${b.otherCost.toFixed(1)} of it for ${b.otherRequests} compaction request${b.otherRequests === 1 ? '' : 's'} the replay does not see`
    : '';
  return (
    `bill (tokens as the provider reported them, at the replay's prices): ${b.requests} request${b.requests === 1 ? '' : 's'}, ` +
    `${b.inputTokens} input tokens (${b.cachedTokens} cached), cost ${b.cost.toFixed(1)}${other}; ` +
    `the replay covers ${b.sentCost.toFixed(1)} of it (${share(b.sentCost, b.cost)}); ` +
    `saved ${b.saved.toFixed(1)} of the ${b.offBill.toFixed(1)} off would have been billed (${share(b.saved, b.offBill)})${shadow}`
  );
}

/** The recorded bill's paragraph in the Context Report, or nothing. */
export function renderRecordedHtml(b: Recorded | null | undefined): string {
  return b ? `<p class="recorded">${escapeHtml(recordedLine(b))}</p>` : '';
}

