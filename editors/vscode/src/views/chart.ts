// The replay chart of the Context Report view (spec/governor.md §11.8): the ContextReport's
// `replay.perRequest` (the live session's requests, summed by the server from their
// `context_governed` events) mapped to the chart `governor analyze --html` draws, one series
// per stream (`off` as sent, `governed`, each baseline) with its cached part. The drawing code
// and the uPlot bundle are the HTML page's own (chartAssets.ts). No `vscode` import: unit-tested
// in plain Node. The report's replay section is rendered by render.ts.
import type { Columns, Figures, Replay } from '../lsp_ext';

// The protocol's shapes are declared once, in lsp_ext.ts.
export type { Columns, Figures, Replay };

export interface ChartSeries {
  mode: string;
  label: string;
  tokens: number[];
  cached: number[];
}

/** The shape of server/src/governor/series.rs's `Chart`. */
export interface Chart {
  requests: number[];
  series: ChartSeries[];
}

/** The chart of a report's `replay`, as `governor::series::chart` builds it: `off`,
 * `governed`, then the baselines in order; undefined without per-request figures. */
export function replayChart(rp: Replay | null | undefined): Chart | undefined {
  const p = rp?.perRequest;
  if (!rp || !p || !(rp.requests > 0)) return undefined;
  const series = (mode: string, label: string, c: Columns | undefined): ChartSeries => ({
    mode,
    label,
    tokens: [...(c?.inputTokens ?? [])],
    cached: [...(c?.cachedTokens ?? [])],
  });
  const out = [series('off', 'off (as sent)', p.off), series('governed', 'governed', p.governed)];
  (rp.baselines ?? []).forEach((b, i) => out.push(series(b.name, b.name, p.baselines?.[i])));
  return { requests: Array.from({ length: rp.requests }, (_, i) => i + 1), series: out };
}
