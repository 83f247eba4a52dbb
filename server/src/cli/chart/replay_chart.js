// The replay chart (spec/governor.md §11.8), drawn with uPlot: per request, each stream's input
// tokens as a line (`off` as sent, `governed`, each `mask:N` baseline) and the cached part of
// each as a shaded area under it. One copy of this code runs in `governor analyze --html`'s page
// (server/src/cli/governor_html.rs) and in the VS Code Context Report view
// (editors/vscode/src/views/chart.ts); both pass the same `chart`: {requests, series: [{mode,
// label, tokens, cached, recovery?}]}, built from the replay's own per-request figures.
// Returns what it drew; the box's data-series and data-cached attributes say the same (tests).
(function () {
  const COLORS = { off: '#cf222e', governed: '#0969da' };
  const PALETTE = ['#8250df', '#1a7f37', '#bf8700', '#57606a'];
  function colorOf(mode, i) {
    return COLORS[mode] || PALETTE[i % PALETTE.length];
  }
  function draw(box, chart, opts) {
    opts = opts || {};
    const series = [{ label: 'request' }];
    const values = [chart.requests];
    const drawn = { series: [], cached: {} };
    chart.series.forEach((x, i) => {
      const color = colorOf(x.mode, i);
      // `off` first and wider: where the governor elides nothing the two lines coincide.
      series.push({ label: x.label, stroke: color, width: i === 0 ? 3 : 2, points: { show: chart.requests.length < 60, size: 4 } });
      values.push(x.tokens);
      drawn.series.push(x.mode);
    });
    // The cached parts after the lines, so the legend lists the streams first.
    chart.series.forEach((x, i) => {
      const color = colorOf(x.mode, i);
      series.push({ label: x.label + ' cached', stroke: color, fill: color + '26', width: 0, points: { show: false } });
      values.push(x.cached);
      drawn.cached[x.mode] = x.cached;
    });
    // The recovery model (spec/governor.md §11.10, a model of recovery, not measured behaviour):
    // a dashed line at the stream's tokens plus its recovery tokens, the band between shaded.
    const bands = [];
    drawn.recovery = {};
    chart.series.forEach((x, i) => {
      if (!x.recovery) return;
      const color = colorOf(x.mode, i);
      const withRecovery = x.tokens.map((t, k) => t + (x.recovery[k] || 0));
      series.push({ label: x.label + ' with recovery (modelled)', stroke: color, dash: [6, 4], width: 1, points: { show: false } });
      values.push(withRecovery);
      bands.push({ series: [series.length - 1, i + 1], fill: color + '40' });
      drawn.recovery[x.mode] = x.recovery;
    });
    const axis = (label, size, incrs) => {
      const a = { label };
      if (size) a.size = size;
      if (incrs) a.incrs = incrs;
      if (opts.axisColor) {
        a.stroke = opts.axisColor;
        a.grid = { stroke: opts.gridColor || opts.axisColor + '33' };
        a.ticks = { stroke: opts.gridColor || opts.axisColor + '33' };
      }
      return a;
    };
    box.textContent = '';
    box.dataset.series = JSON.stringify(drawn.series);
    box.dataset.cached = JSON.stringify(drawn.cached);
    box.dataset.recovery = JSON.stringify(drawn.recovery);
    if (!chart.requests.length) {
      const p = document.createElement('p');
      p.textContent = 'No replayed request yet.';
      box.appendChild(p);
      return drawn;
    }
    const width = opts.width || Math.max(320, Math.min(1100, box.clientWidth || 900));
    drawn.plot = new uPlot({
      width, height: opts.height || 320,
      scales: { x: { time: false }, y: { range: (u, min, max) => [0, max > 0 ? max * 1.05 : 1] } },
      // Requests are whole numbers: no tick at 1.5.
      axes: [axis('request', 0, [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000]), axis('input tokens', 70)],
      series,
      bands,
    }, values, box);
    return drawn;
  }
  (typeof window !== 'undefined' ? window : globalThis).alisioReplayChart = draw;
})();
