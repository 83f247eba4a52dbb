// The Context Report view: one webview panel per session showing spec/governor.md §6's report as a
// segment table, two SVG bar charts (render.ts) and the replay chart of the session's requests
// (chart.ts: the uPlot chart of `governor analyze --html`, same code, same bundle). It refreshes
// itself from `alisio/contextReport` when the session's events say the report changed
// (context_governed: a new request, with its replay figures; compaction; end of run), and the
// chart is redrawn with the new request.
import * as vscode from 'vscode';
import { SessionEvent } from './chatModel';
import { Chart, replayChart } from './chart';
import { CHART_ASSETS } from './chartAssets';
import { ContextReport, escapeHtml, renderReportHtml } from './render';
import { webviewHtml } from './webview';

/** What the panel posts to its webview for a report: the HTML and the replay chart's data. */
export function reportMessage(report: ContextReport): { type: 'html'; html: string; chart?: Chart } {
  return { type: 'html', html: renderReportHtml(report), chart: report.measured && report.mode !== 'off' ? replayChart(report.replay) : undefined };
}

export type ReportFetcher = (sessionId: string) => Promise<ContextReport>;

// `turn_completed`: the recorded bill (spec/governor.md §11.11) changes with each answered request.
const REFRESH_ON = new Set(['context_governed', 'turn_completed', 'context_reduced', 'compaction_completed', 'run_completed', 'run_failed', 'run_cancelled']);

export class ReportPanel {
  static readonly viewType = 'alisio.contextReport';
  private static panels = new Map<string, ReportPanel>();
  private timer: NodeJS.Timeout | undefined;
  private ready = false;
  private pending: { type: 'html'; html: string; chart?: Chart } | undefined;
  /** The last report shown (for tests and the chat's header). */
  last: ContextReport | undefined;

  private constructor(
    private readonly panel: vscode.WebviewPanel,
    readonly sessionId: string,
    private readonly fetch: ReportFetcher,
  ) {
    panel.webview.html = webviewHtml(panel.webview, 'Context Report', '<p>Loading the report…</p>', false, CHART_ASSETS);
    panel.webview.onDidReceiveMessage((m) => {
      if (m?.type === 'ready') {
        this.ready = true;
        if (this.pending !== undefined) {
          this.post(this.pending);
        }
      }
    });
    panel.onDidDispose(() => {
      ReportPanel.panels.delete(sessionId);
      if (this.timer) clearTimeout(this.timer);
    });
  }

  static show(sessionId: string, fetch: ReportFetcher, report?: ContextReport): ReportPanel {
    let p = ReportPanel.panels.get(sessionId);
    if (p) {
      p.panel.reveal(undefined, true);
    } else {
      const panel = vscode.window.createWebviewPanel(ReportPanel.viewType, `Context Report · ${sessionId}`, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true }, {
        enableScripts: true,
        retainContextWhenHidden: true,
        localResourceRoots: [],
      });
      p = new ReportPanel(panel, sessionId, fetch);
      ReportPanel.panels.set(sessionId, p);
    }
    if (report) {
      p.render(report);
    } else {
      void p.refresh();
    }
    return p;
  }

  static get(sessionId: string): ReportPanel | undefined {
    return ReportPanel.panels.get(sessionId);
  }

  /** Live updates: called for every `alisio/sessionEvent`. */
  static onEvent(sessionId: string, ev: SessionEvent): void {
    const ids = [sessionId, ev.parentSessionId].filter((x): x is string => !!x);
    for (const id of ids) {
      const p = ReportPanel.panels.get(id);
      if (p && REFRESH_ON.has(ev.type)) {
        p.scheduleRefresh();
      }
    }
  }

  scheduleRefresh(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.refresh(), 150);
  }

  async refresh(): Promise<void> {
    try {
      this.render(await this.fetch(this.sessionId));
    } catch (e) {
      this.post({ type: 'html', html: `<p class="error-box">Could not get the report of session <code>${escapeHtml(this.sessionId)}</code>: ${escapeHtml((e as Error)?.message ?? e)}</p>` });
    }
  }

  render(report: ContextReport): void {
    this.last = report;
    this.post(reportMessage(report));
  }

  private post(m: { type: 'html'; html: string; chart?: Chart }): void {
    this.pending = m;
    if (this.ready) {
      void this.panel.webview.postMessage(m);
    }
  }
}
