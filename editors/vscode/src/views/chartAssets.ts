// The replay chart's code for the Context Report webview: the very files `governor analyze
// --html` embeds (server/src/cli/chart/replay_chart.js and the uPlot 1.6.32 bundle vendored in
// server/src/cli/vendor/, MIT), inlined into the extension bundle at build time (the `?text`
// imports of scripts/build.mjs) and into the webview under its CSP nonce: no network, no
// local resource roots.
import UPLOT_CSS from '../../../../server/src/cli/vendor/uPlot.min.css?text';
import UPLOT_JS from '../../../../server/src/cli/vendor/uPlot.iife.min.js?text';
import CHART_JS from '../../../../server/src/cli/chart/replay_chart.js?text';

export interface WebviewAssets {
  scripts: string[];
  style: string;
}

export const CHART_ASSETS: WebviewAssets = { scripts: [UPLOT_JS, CHART_JS], style: UPLOT_CSS };
