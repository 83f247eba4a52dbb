// The Context Report view's replay chart: the mapping of a report's `replay` (spec/governor.md
// §11.8) to the chart, the report's replay section, the message the panel posts, and the shared
// drawing code (server/src/cli/chart/replay_chart.js) run against a recording uPlot.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { replayChart, Replay } from '../src/views/chart';
import { CHART_ASSETS } from '../src/views/chartAssets';
import { ContextReport, renderReportHtml } from '../src/views/render';
import { reportMessage } from '../src/views/report';

const f = (inputTokens: number, cachedTokens: number, cost: number, cacheBreaks: number) => ({ inputTokens, cachedTokens, cost, cacheBreaks });

// Three requests of a live session and one masking baseline.
const REPLAY: Replay = {
  requests: 3,
  off: f(1200, 700, 1325, 0),
  governed: f(900, 500, 550, 1),
  baselines: [{ name: 'mask:5', ...f(1000, 300, 900, 1) }],
  perRequest: {
    off: { inputTokens: [300, 400, 500], cachedTokens: [0, 300, 400] },
    governed: { inputTokens: [300, 250, 350], cachedTokens: [0, 200, 300] },
    baselines: [{ inputTokens: [300, 320, 380], cachedTokens: [0, 100, 200] }],
  },
};

const REPORT: ContextReport = {
  mode: 'on', measured: true, sessionId: 's-9', request: null, messages: 6, eligibleMessages: 4, segments: [],
  totals: { segments: 5, tokensBefore: 500, tokensAfter: 350, tokensSaved: 150, elided: 1, byReason: { superseded_read: 1 }, byCriticality: {} },
  replay: REPLAY,
};

test('the chart of a replay has one series per stream, its per-request tokens and cached part', () => {
  assert.deepEqual(replayChart(REPLAY), {
    requests: [1, 2, 3],
    series: [
      { mode: 'off', label: 'off (as sent)', tokens: [300, 400, 500], cached: [0, 300, 400] },
      { mode: 'governed', label: 'governed', tokens: [300, 250, 350], cached: [0, 200, 300] },
      { mode: 'mask:5', label: 'mask:5', tokens: [300, 320, 380], cached: [0, 100, 200] },
    ],
  });
});

test('no chart without per-request figures or before the first request', () => {
  assert.equal(replayChart(undefined), undefined);
  assert.equal(replayChart(null), undefined);
  assert.equal(replayChart({ ...REPLAY, perRequest: undefined }), undefined);
  assert.equal(replayChart({ ...REPLAY, requests: 0 }), undefined);
});

test('a new request redraws the chart with one more point per series', () => {
  const next: Replay = {
    ...REPLAY,
    requests: 4,
    perRequest: {
      off: { inputTokens: [300, 400, 500, 650], cachedTokens: [0, 300, 400, 500] },
      governed: { inputTokens: [300, 250, 350, 420], cachedTokens: [0, 200, 300, 350] },
      baselines: [],
    },
    baselines: [],
  };
  const before = reportMessage(REPORT).chart;
  const after = reportMessage({ ...REPORT, replay: next }).chart;
  assert.deepEqual(before?.requests, [1, 2, 3]);
  assert.deepEqual(after?.requests, [1, 2, 3, 4]);
  assert.deepEqual(after?.series.map((s) => [s.mode, s.tokens.length, s.cached[3]]), [['off', 4, 500], ['governed', 4, 350]]);
});

test('the report shows the replay figures per stream and the box the chart is drawn in', () => {
  const html = renderReportHtml(REPORT);
  assert.ok(html.includes('<div id="replay-chart" class="replay-chart"></div>'));
  assert.ok(html.includes('<tr data-stream="off"><td>off</td><td class="num">1200</td><td class="num">700</td><td class="num">1325</td><td class="num">0</td></tr>'));
  assert.ok(html.includes('<tr data-stream="mask:5"><td>mask:5</td><td class="num">1000</td><td class="num">300</td><td class="num">900</td><td class="num">1</td></tr>'));
  assert.ok(html.includes('3 requests of this session'));
  const none = renderReportHtml({ ...REPORT, replay: undefined });
  assert.ok(!none.includes('id="replay-chart"'));
  assert.ok(none.includes('<p class="replay-none">No request of this session has been replayed yet'));
});

test('the report shows the recorded bill when the provider reported the usage (spec/governor.md §11.11)', () => {
  // The unit test of recorded.rs: a shadow request and a governed one.
  const recorded = {
    requests: 2, inputTokens: 8300, cachedTokens: 7000, cost: 2325, offCost: 800, governedCost: 350, recoveryCost: 0,
    saved: 450, sentCost: 450, shadowSaved: 100, otherRequests: 0, otherCost: 0, offBill: 2675, savedShare: 450 / 2675,
  };
  const html = renderReportHtml({ ...REPORT, replay: { ...REPLAY, recorded } });
  // The very sentence of recorded.rs's unit test (`live_line`).
  assert.ok(html.includes("<p class=\"recorded\">bill (tokens as the provider reported them, at the replay&#39;s prices): 2 requests, 8300 input tokens (7000 cached), cost 2325.0; the replay covers 450.0 of it (0.194); saved 450.0 of the 2675.0 off would have been billed (0.168), 100.0 of it in shadow requests (not sent, no recovery charged)</p>"), html);
  assert.ok(renderReportHtml({ ...REPORT, replay: { ...REPLAY, recorded: { ...recorded, requests: 1, shadowSaved: 0 } } }).includes('1 request, 8300 input tokens'));
  // With a compaction summary (recorded.rs's unit test): the same sentence as `live_line`.
  const withSummary = { ...recorded, requests: 3, inputTokens: 11300, cachedTokens: 8000, cost: 4925, otherRequests: 1, otherCost: 2600, offBill: 5275 };
  assert.ok(renderReportHtml({ ...REPORT, replay: { ...REPLAY, recorded: withSummary } }).includes(
    'bill (tokens as the provider reported them, at the replay&#39;s prices): 3 requests, 11300 input tokens (8000 cached), cost 4925.0, 2600.0 of it for 1 compaction request the replay does not see; the replay covers 450.0 of it (0.091); saved 450.0 of the 5275.0 off would have been billed (0.085), 100.0 of it in shadow requests (not sent, no recovery charged)'));
  assert.ok(!renderReportHtml(REPORT).includes('class="recorded"'));
  assert.ok(!renderReportHtml({ ...REPORT, replay: { ...REPLAY, recorded: null } }).includes('class="recorded"'));
});

test('the panel posts the chart with the HTML, none in mode off', () => {
  const m = reportMessage(REPORT);
  assert.equal(m.type, 'html');
  assert.equal(m.html, renderReportHtml(REPORT));
  assert.deepEqual(m.chart, replayChart(REPLAY));
  assert.equal(reportMessage({ mode: 'off', measured: false, sessionId: 's-1' }).chart, undefined);
});

test('the webview runs the uPlot bundle and the chart code of governor analyze --html', async () => {
  const { readFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const server = join(__dirname, '..', '..', '..', '..', 'server', 'src', 'cli');
  assert.equal(CHART_ASSETS.scripts[0], readFileSync(join(server, 'vendor', 'uPlot.iife.min.js'), 'utf8'));
  assert.equal(CHART_ASSETS.scripts[1], readFileSync(join(server, 'chart', 'replay_chart.js'), 'utf8'));
  assert.equal(CHART_ASSETS.style, readFileSync(join(server, 'vendor', 'uPlot.min.css'), 'utf8'));
  for (const s of CHART_ASSETS.scripts) assert.ok(!s.includes('</script'));
});

test('the shared chart code gives uPlot one line per stream and one shaded cached area each', () => {
  const made: { opts: any; data: number[][] }[] = [];
  const g = globalThis as any;
  g.uPlot = class {
    constructor(opts: any, data: number[][]) {
      made.push({ opts, data });
    }
  };
  new Function(CHART_ASSETS.scripts[1])();
  const box = { dataset: {} as Record<string, string>, textContent: 'old', clientWidth: 700 };
  const chart = replayChart(REPLAY)!;
  const drawn = g.alisioReplayChart(box, chart, { axisColor: '#ccc', width: 640 });
  assert.deepEqual(drawn.series, ['off', 'governed', 'mask:5']);
  assert.equal(box.textContent, '');
  assert.equal(box.dataset.series, '["off","governed","mask:5"]');
  assert.equal(box.dataset.cached, '{"off":[0,300,400],"governed":[0,200,300],"mask:5":[0,100,200]}');
  assert.equal(made.length, 1);
  const { opts, data } = made[0];
  assert.equal(opts.width, 640);
  assert.deepEqual(opts.series.map((s: any) => s.label), ['request', 'off (as sent)', 'governed', 'mask:5', 'off (as sent) cached', 'governed cached', 'mask:5 cached']);
  assert.deepEqual(opts.series.slice(4).map((s: any) => [s.width, typeof s.fill]), [[0, 'string'], [0, 'string'], [0, 'string']]);
  assert.equal(opts.series[1].stroke + '26', opts.series[4].fill);
  assert.deepEqual(data, [[1, 2, 3], [300, 400, 500], [300, 250, 350], [300, 320, 380], [0, 300, 400], [0, 200, 300], [0, 100, 200]]);
  assert.equal(opts.axes[1].stroke, '#ccc');
  delete g.uPlot;
  delete g.alisioReplayChart;
});
