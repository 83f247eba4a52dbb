// Drives code-server in headless Chromium (playwright-core, the system /usr/bin/chromium) and
// checks what a user of the Alisio extension sees. Called by smoke.sh; exits non-zero with a
// message on the first failed check, after saving a screenshot of that moment.
import { readFileSync, existsSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const env = (k) => {
  const v = process.env[k];
  if (!v) throw new Error(`${k} is not set`);
  return v;
};
const URL_ = env('SMOKE_URL');
const DIAGS = env('SMOKE_DIAGNOSTICS');
const ARTIFACTS = env('SMOKE_ARTIFACTS');
const FULL = process.env.ALISIO_SMOKE_FULL === '1';
const require = createRequire(import.meta.url);
const { chromium } = require(env('SMOKE_PLAYWRIGHT'));

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const page = await browser.newPage({ viewport: { width: 1600, height: 900 } });
let step = 'load';

async function shot(name) {
  const p = join(ARTIFACTS, `vscode-${name}.png`);
  await page.screenshot({ path: p });
  console.log(`screenshot ${p}`);
}

async function fail(msg) {
  console.error(`FAILED at ${step}: ${msg}`);
  await shot(`failure-${step}`).catch(() => {});
  await browser.close();
  process.exit(1);
}

async function until(what, fn, timeoutMs = 60000) {
  const start = Date.now();
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() - start > timeoutMs) await fail(`timed out waiting for ${what}`);
    await page.waitForTimeout(250);
  }
}

function diagnostics(suffix) {
  if (!existsSync(DIAGS)) return [];
  try {
    const all = JSON.parse(readFileSync(DIAGS, 'utf8'));
    return all.filter((e) => e.uri.endsWith(suffix)).flatMap((e) => e.diagnostics);
  } catch {
    return [];
  }
}

async function openFile(rel) {
  const name = rel.split('/').pop();
  for (let attempt = 0; attempt < 3; attempt++) {
    await page.keyboard.press('Control+P');
    await page.waitForSelector('.quick-input-widget input', { state: 'visible', timeout: 15000 });
    await page.keyboard.type(rel, { delay: 10 });
    const row = page.locator('.quick-input-list .monaco-list-row:visible', { hasText: name }).first();
    await row.waitFor({ state: 'visible', timeout: 15000 });
    await page.waitForTimeout(300);
    await row.click();
    const start = Date.now();
    while (Date.now() - start < 10000) {
      const tab = (await page.locator('.tab.active').first().textContent().catch(() => '')) ?? '';
      if (tab.includes(name)) return;
      await page.waitForTimeout(250);
    }
    await page.keyboard.press('Escape');
  }
  await fail(`could not open ${rel}`);
}

async function runCommand(title) {
  await page.keyboard.press('Control+Shift+P');
  await page.waitForSelector('.quick-input-widget input', { state: 'visible', timeout: 15000 });
  await page.keyboard.type(title, { delay: 10 });
  const row = page.locator('.quick-input-list .monaco-list-row:visible', { hasText: title }).first();
  await row.waitFor({ state: 'visible', timeout: 15000 });
  await page.waitForTimeout(300);
  await row.click();
  // the palette closes (or is replaced by the command's own quick pick)
  await until(`the command palette to run ${title}`, async () => !(await row.isVisible().catch(() => false)), 15000);
}

async function frameWith(selector, what, timeoutMs = 30000) {
  return until(what, async () => {
    for (const f of page.frames()) {
      if (await f.$(selector).catch(() => null)) return f;
    }
    return null;
  }, timeoutMs);
}

process.on('unhandledRejection', (e) => fail(String(e?.message ?? e)));
const started = Date.now();
await page.goto(URL_);
await page.waitForSelector('.monaco-workbench', { timeout: 90000 });
await page.waitForTimeout(2000);

if (process.env.SMOKE_PHASE === 'chat') {
  // The same chat → approval → write → streamed answer → Context Report flow, against the real
  // bundled server and its offline `script` provider (user config, written by smoke.sh). The
  // report's expected values come from the same binary: `alisio-ls sessions report <id> --json`.
  const WS = env('SMOKE_WS');
  const norm = (t) => (t ?? '').replace(/\s+/g, ' ').trim();
  step = 'real-chat';
  await openFile('AGENTS.md');
  await runCommand('Alisio: Start Agent Session');
  const chat = await frameWith('#prompt', 'the chat webview');
  await chat.fill('#prompt', 'Write a.txt');
  await chat.click('#send');
  step = 'real-approval';
  const once = chat.locator('button[data-approve="allow-once"]');
  await once.waitFor({ state: 'visible', timeout: 120000 });
  const buttons = (await chat.locator('.approval button[data-approve]').allTextContents()).map(norm);
  if (JSON.stringify(buttons) !== JSON.stringify(['Allow once', 'Allow for this session', 'Deny'])) await fail(`approval buttons ${JSON.stringify(buttons)}`);
  const question = norm(await chat.locator('.approval > div').first().textContent());
  if (question !== 'Approve write? Write a.txt (5 bytes)') await fail(`approval question ${JSON.stringify(question)}`);
  if (existsSync(join(WS, 'a.txt'))) await fail('a.txt exists before the approval');
  // The chat card shows the preview; a real diff editor opened before the write: the current
  // side empty (a new file), the proposed side exactly what the call writes.
  const previewLine = norm(await chat.locator('.approval .preview').first().textContent());
  if (previewLine !== 'a.txt (new file, 0 → 1 lines) Show diff') await fail(`chat preview ${JSON.stringify(previewLine)}`);
  step = 'real-diff';
  const diff = page.locator('.monaco-diff-editor').first();
  await diff.waitFor({ state: 'visible', timeout: 30000 });
  const diffTab = 'a.txt (new file) · write_file — approve?';
  await until('the diff editor tab', async () => (await page.locator('.tab', { hasText: diffTab }).count()) > 0, 30000);
  const proposed = await until('the proposed side of the diff', async () => {
    // side by side or inline (a narrow column): the proposed line is on screen
    const t = (await diff.locator('.view-lines').allTextContents().catch(() => [])).map(norm);
    return t.includes('hello') ? 'hello' : null;
  }, 30000);
  const actions = page.locator('.editor-actions .action-item a[aria-label="Approve once"]');
  await actions.first().waitFor({ state: 'visible', timeout: 30000 });
  for (const label of ['Approve for session', 'Deny']) {
    if ((await page.locator(`.editor-actions .action-item a[aria-label="${label}"]`).count()) < 1) await fail(`no ${label} action on the diff editor`);
  }
  await shot('real-chat-diff-approval');
  console.log(`diff editor opened before the write: proposed side ${JSON.stringify(proposed)}, title ${JSON.stringify(diffTab)}`);
  // Approve from the diff editor itself; the chat shows the decision.
  await actions.first().click();
  step = 'real-write';
  await until('a.txt written in the workspace', () => existsSync(join(WS, 'a.txt')), 120000);
  const written = readFileSync(join(WS, 'a.txt'), 'utf8');
  if (written !== 'hello') await fail(`a.txt holds ${JSON.stringify(written)}`);
  step = 'real-answer';
  // The run is over when the session line appears and Send is enabled again.
  await until('the end of the run', async () => (await chat.locator('.session code').count()) > 0 && !(await chat.locator('#send').isDisabled()), 120000);
  const answers = (await chat.locator('.msg.assistant .markdown').allTextContents()).map((t) => t.trim());
  if (JSON.stringify(answers) !== JSON.stringify(['I will write the file.', 'Wrote a.txt.'])) await fail(`assistant messages ${JSON.stringify(answers)}`);
  const decision = norm(await chat.locator('.approval .decision').first().textContent());
  if (decision !== 'allow-once') await fail(`decision shown ${JSON.stringify(decision)}`);
  const tool = norm(await chat.locator('.tool[data-call="w1"] b').first().textContent().catch(() => ''));
  const toolOk = await chat.locator('.tool.ok[data-call="w1"]').count();
  if (tool !== 'write_file' || toolOk !== 1) await fail(`write_file call shown as ${JSON.stringify(tool)} (ok: ${toolOk})`);
  const errors = await chat.locator('.status.error').allTextContents();
  if (errors.length) await fail(`errors in the chat ${JSON.stringify(errors)}`);
  // The shell call ran in the sandbox without a prompt (approvals.process: sandboxed): one
  // approval in all (the write), s.txt written, nothing outside, the badge names the mode.
  const approvals = await chat.locator('.approval').count();
  if (approvals !== 1) await fail(`${approvals} approvals shown, want only the write's`);
  if ((await chat.locator('.tool.ok[data-call="s1"]').count()) !== 1) await fail('the sandboxed shell call is not shown as ok');
  if (!existsSync(join(WS, 's.txt'))) await fail('the sandboxed shell call did not write s.txt');
  if (existsSync(join(WS, '..', 'outside-s.txt'))) await fail('the sandboxed shell call wrote outside the workspace');
  const badge = norm(await chat.locator('.sandbox').first().textContent().catch(() => ''));
  if (badge !== 'sandbox: workspace-write') await fail(`sandbox badge ${JSON.stringify(badge)}`);
  const sid = norm(await chat.locator('.session code').first().textContent());
  if (!sid) await fail('no session id in the chat');

  step = 'real-report';
  // At the end of the run the panel opens with the run result's own report (the next request
  // as this editor run would send it, write tools offered).
  let report = await frameWith('svg.chart', 'the Context Report webview', 60000);
  const rowCells = async (f) => Promise.all((await f.locator('table.segments tbody tr').all()).map(async (r) => (await r.locator('td').allTextContents()).map(norm).slice(0, 6)));
  const shownSid = norm(await report.locator('h2 code').first().textContent());
  if (shownSid !== sid) await fail(`report of session ${JSON.stringify(shownSid)}, chat session ${sid}`);
  const runRows = await rowCells(report);
  const runBefore = Number(await report.locator('b[data-k="tokensBefore"]').textContent());
  // The report the same binary computes from the same state directory. The editor's next
  // request offers the write and process tools (it can ask for approval); a headless
  // `sessions report` offers them when the configuration allows them, so `--config` with both
  // effects allowed gives the editor's view exactly (docs/sessions.md).
  const policies = join(mkdtempSync(join(tmpdir(), 'alisio-smoke-')), 'allow.json');
  writeFileSync(policies, '{"approvals": {"write": "allow", "process": "allow"}}');
  const cli = execFileSync(env('SMOKE_LS_BIN'), ['sessions', 'report', sid, '--json', '--cwd', WS, '--trust-project', '--config', policies], { encoding: 'utf8' });
  const want = JSON.parse(cli);
  if (want.sessionId !== sid || want.mode !== 'on' || !want.measured || !want.totals) await fail(`the CLI report ${cli.slice(0, 400)}`);
  const segs = want.segments ?? [];
  const wantRows = segs.map((s) => [String(s.index), s.kind, s.origin, String(s.tokens), s.criticality, s.reason].map(norm));
  if (JSON.stringify(runRows) !== JSON.stringify(wantRows)) await fail(`the run's report rows ${JSON.stringify(runRows)}, the CLI's ${JSON.stringify(wantRows)}`);
  if (runBefore !== want.totals.tokensBefore) await fail(`the run's tokensBefore ${runBefore}, the CLI's ${want.totals.tokensBefore}`);
  // Without the allowance a headless report offers read tools only: a smaller tools segment.
  const headless = JSON.parse(execFileSync(env('SMOKE_LS_BIN'), ['sessions', 'report', sid, '--json', '--cwd', WS, '--trust-project'], { encoding: 'utf8' }));
  const toolsOf = (rep) => (rep.segments ?? []).find((x) => x.kind === 'tools')?.tokens;
  const runTools = wantRows.find((r) => r[1] === 'tools');
  const cliTools = [0, 0, 0, String(toolsOf(headless))];
  if (!(toolsOf(headless) < toolsOf(want))) await fail(`tools segment: editor ${toolsOf(want)}, headless ${toolsOf(headless)}`);
  // The replay chart (uPlot, the chart code of `governor analyze --html`): one series per mode,
  // the cached parts those of the session's stored per-request figures (the CLI report's
  // `replay.perRequest`, the same store).
  const wantChart = (rep) => {
    const p = rep.replay?.perRequest;
    return p ? JSON.stringify({ off: p.off.cachedTokens, governed: p.governed.cachedTokens }) : null;
  };
  const chartOf = (f) => f.locator('#replay-chart').evaluate((b) => ({
    series: b.dataset.series, cached: b.dataset.cached, canvas: b.querySelectorAll('canvas').length,
    legend: [...b.querySelectorAll('.u-legend .u-series')].length,
  }), { timeout: 1000 });
  const checkChart = async (f, rep, what) => {
    const c = await chartOf(f).catch((e) => ({ error: String(e?.message ?? e) }));
    if (c.series !== '["off","governed"]' || c.canvas !== 1 || c.legend !== 5 || c.cached !== wantChart(rep)) {
      await fail(`${what}: replay chart ${JSON.stringify(c)}, the CLI report's cached parts ${wantChart(rep)}`);
    }
    return c;
  };
  if (!(want.replay?.requests >= 2)) await fail(`the CLI report's replay ${JSON.stringify(want.replay)}`);
  await checkChart(report, want, 'the run report');
  await shot('real-run-report');

  // The chat's Context Report link asks the server (`alisio/contextReport`) again: the panel
  // must then show exactly the same report (the request counter proves it was redrawn).
  await chat.locator(`a[data-report="${sid}"]`).click();
  report = await until('the panel to show the alisio/contextReport values', async () => {
    for (const f of page.frames()) {
      const v = await f.locator('b[data-k="tokensBefore"]').textContent({ timeout: 1000 }).catch(() => null);
      if (v === String(want.totals.tokensBefore)) return f;
    }
    return null;
  }, 60000);
  const summary = norm(await report.locator('p.summary').textContent());
  const wantSummary = `mode on · request ${want.request ?? '–'} · ${want.messages ?? 0} messages (${want.eligibleMessages ?? 0} eligible)${want.compacted ? ' · compacted' : ''}`;
  if (summary !== wantSummary) await fail(`summary ${JSON.stringify(summary)}, the CLI says ${JSON.stringify(wantSummary)}`);
  for (const k of ['tokensBefore', 'tokensSaved', 'tokensAfter']) {
    const v = await report.locator(`b[data-k="${k}"]`).textContent();
    if (v !== String(want.totals[k])) await fail(`${k} shown ${v}, the CLI says ${want.totals[k]}`);
  }
  const t = want.totals;
  const totalsLine = norm(await report.locator('p.totals').textContent());
  const wantTotals = `tokens before ${t.tokensBefore} · saved ${t.tokensSaved} · after ${t.tokensAfter} · ${t.elided} elided result${t.elided === 1 ? '' : 's'} · ${t.segments} segments${want.segmentsOmitted ? ` (${want.segmentsOmitted} not listed)` : ''}`;
  if (totalsLine !== wantTotals) await fail(`totals ${JSON.stringify(totalsLine)}, the CLI says ${JSON.stringify(wantTotals)}`);
  const c = t.byCriticality ?? {};
  const crit = norm(await report.locator('p.criticality').textContent());
  const wantCrit = `pinned ${c.pinned ?? 0} · high ${c.high ?? 0} · normal ${c.normal ?? 0} · low ${c.low ?? 0}`;
  if (crit !== wantCrit) await fail(`criticality ${JSON.stringify(crit)}, the CLI says ${JSON.stringify(wantCrit)}`);
  const shownRows = await rowCells(report);
  if (segs.length === 0 || JSON.stringify(shownRows) !== JSON.stringify(wantRows)) await fail(`segment rows ${JSON.stringify(shownRows)}, the CLI says ${JSON.stringify(wantRows)}`);
  // Charts: tokens by kind (sum over the listed segments, first-appearance order), then the
  // three elision reasons.
  const byKind = new Map();
  for (const s of segs) byKind.set(s.kind, (byKind.get(s.kind) ?? 0) + s.tokens);
  const saved = new Map(['superseded_read', 'stale_bg_output', 'duplicate_search'].map((r) => [r, 0]));
  for (const s of segs) if (s.elided) saved.set(s.elided.reason, saved.get(s.elided.reason) + s.elided.tokensSaved);
  const wantBars = [...byKind, ...saved].map(([l, v]) => `${l}=${v}`);
  const bars = await report.locator('svg.chart g.row').evaluateAll((gs) => gs.map((g) => `${g.getAttribute('data-label')}=${g.getAttribute('data-value')}`));
  if (JSON.stringify(bars) !== JSON.stringify(wantBars)) await fail(`chart bars ${JSON.stringify(bars)}, the CLI report gives ${JSON.stringify(wantBars)}`);
  const firstChart = await checkChart(report, want, 'alisio/contextReport');
  await page.waitForTimeout(500);
  await shot('real-chat-and-report');
  if ((await page.locator('.monaco-diff-editor').count()) !== 0) await fail('the diff editor is still open after the approval');
  // openFile checks the first group's active tab: open files there.
  await runCommand('View: Focus First Editor Group');
  await openFile('a.txt');
  await page.waitForTimeout(500);
  await shot('real-chat-file-written');

  // "Add Selection to Chat": line 3 of AGENTS.md, sent with the next prompt; the script
  // expects the attachment block in the request, and answers with a code block.
  step = 'real-attach';
  await runCommand('View: Focus First Editor Group');
  await openFile('AGENTS.md');
  await page.keyboard.press('Control+G');
  await page.waitForSelector('.quick-input-widget input', { state: 'visible', timeout: 15000 });
  await page.keyboard.type('3', { delay: 10 });
  await page.keyboard.press('Enter');
  await page.keyboard.press('Home');
  await page.keyboard.press('Shift+End');
  await runCommand('Alisio: Add Selection to Chat');
  await until('the attachment chip in the chat', async () => norm(await chat.locator('#attachments .chip').first().textContent().catch(() => '')) === 'AGENTS.md:3-3 ×', 30000);
  await shot('real-chat-attachment');
  const useScript = (file) => writeFileSync(join(env('ALISIO_CONFIG_HOME'), 'config.json'), JSON.stringify({ provider: { kind: 'script', script: file }, context: { governor: 'on' } }));
  useScript(env('SMOKE_SCRIPT2'));
  await chat.fill('#prompt', 'What does it say?');
  await chat.click('#send');
  const code = await until('the answer with a code block', async () => {
    const t = await chat.locator('.msg.assistant .codeblock code').first().textContent().catch(() => null);
    return t === 'Always answer briefly.\n' ? t : null;
  }, 120000);
  const you = [norm(await chat.locator('.msg.user .chip').last().textContent()), norm(await chat.locator('.msg.user .text').last().textContent())];
  if (JSON.stringify(you) !== JSON.stringify(['AGENTS.md:3-3', 'What does it say?'])) await fail(`the prompt shown as ${JSON.stringify(you)}`);
  const codeButtons = (await chat.locator('.msg.assistant .codeblock .code-actions button').allTextContents()).map(norm);
  if (JSON.stringify(codeButtons) !== JSON.stringify(['Copy', 'Insert at cursor'])) await fail(`code block buttons ${JSON.stringify(codeButtons)}`);
  if (await chat.locator('.status.error').count()) await fail(`errors in the chat ${JSON.stringify(await chat.locator('.status.error').allTextContents())}`);
  // after the run the chat re-reads its changes and checkpoints (a redraw replaces its DOM)
  await until('the end of the second run', async () => !(await chat.locator('#send').isDisabled()), 60000);
  await page.waitForTimeout(1000);
  await until('the code block scrolled into view', () => chat.locator('.msg.assistant .codeblock').last().scrollIntoViewIfNeeded({ timeout: 2000 }).then(() => true, () => false), 15000);
  await shot('real-chat-codeblock');
  console.log(`Add Selection to Chat reached the provider (script expectation) and the answer rendered a code block ${JSON.stringify(code)}`);

  // A new chat lists the session; opening it shows its transcript, and a prompt continues it
  // (the script expects the earlier turns in the request).
  step = 'real-resume';
  // As a user coming back later: the chat is closed, a new one lists the session.
  await page.locator('.tab', { hasText: 'Alisio Agent' }).first().click();
  await runCommand('View: Close Editor');
  await until('the old chat to close', async () => (await page.locator('.tab', { hasText: 'Alisio Agent' }).count()) === 0, 15000);
  await runCommand('Alisio: Start Agent Session');
  const fresh = await frameWith(`.sessions a[data-open="${sid}"]`, 'the session list of a new chat');
  const listed = norm(await fresh.locator(`.sessions li`).first().textContent());
  if (!listed.startsWith('Write a.txt ') || !listed.endsWith(' · 8 messages')) await fail(`session listed as ${JSON.stringify(listed)}`);
  await shot('real-chat-session-list');
  await fresh.locator(`.sessions a[data-open="${sid}"]`).click();
  await until('the transcript in the new chat', async () => (await fresh.locator('.msg.user').count()) === 2, 30000);
  const earlier = (await fresh.locator('.msg.user .text').allTextContents()).map(norm);
  if (JSON.stringify(earlier) !== JSON.stringify(['Write a.txt', 'What does it say?'])) await fail(`transcript prompts ${JSON.stringify(earlier)}`);
  useScript(env('SMOKE_SCRIPT3'));
  await fresh.fill('#prompt', 'And now?');
  await fresh.click('#send');
  await until('the resumed answer', async () => (await fresh.locator('.msg.assistant .markdown').allTextContents()).map(norm).includes('Resumed: the same session.'), 120000);
  await until('the end of the resumed run', async () => !(await fresh.locator('#send').isDisabled()), 60000);
  const resumedSid = norm(await fresh.locator('.session code').first().textContent());
  if (resumedSid !== sid) await fail(`the resumed chat is session ${resumedSid}, not ${sid}`);
  // The run's report opened over the chat: bring the chat to the front for the picture.
  await page.locator('.tab', { hasText: 'Alisio Agent' }).first().click();
  await page.waitForTimeout(500);
  await shot('real-chat-resumed');
  console.log(`session ${sid} listed (${JSON.stringify(listed)}), opened with its transcript and continued`);
  // The Context Report panel of the session stayed open: the resumed run's requests were
  // reported (context_governed) and its chart redrawn with them.
  step = 'real-live-chart';
  const later = JSON.parse(execFileSync(env('SMOKE_LS_BIN'), ['sessions', 'report', sid, '--json', '--cwd', WS, '--trust-project', '--config', policies], { encoding: 'utf8' }));
  if (!(later.replay?.requests > want.replay.requests)) await fail(`replay requests after the resumed run ${later.replay?.requests}, before ${want.replay.requests}`);
  await page.locator('.tab', { hasText: 'Context Report' }).first().click();
  const redrawn = await until('the Context Report chart redrawn with the resumed run', async () => {
    for (const f of page.frames()) {
      const c = await chartOf(f).catch(() => null);
      if (c && c.cached === wantChart(later)) return f;
    }
    return null;
  }, 60000);
  const liveChart = await checkChart(redrawn, later, 'after the resumed run');
  await redrawn.locator('#replay-chart').scrollIntoViewIfNeeded();
  await page.waitForTimeout(500);
  await shot('context-report-chart');
  console.log(`Context Report chart: series ${firstChart.series}, ${want.replay.requests} requests, then ${later.replay.requests} after the resumed run (cached ${liveChart.cached})`);
  console.log(`real server: session ${sid}, a.txt written after allow-once, answer streamed; run report tokensBefore ${runBefore} ` +
    `(tools ${runTools[3]}) = alisio/contextReport = CLI report with write and process allowed: ${segs.length} segments, before ${t.tokensBefore}, ` +
    `saved ${t.tokensSaved}, after ${t.tokensAfter}; headless CLI report tools ${cliTools[3]}, in ${Date.now() - started} ms`);
  await browser.close();
  process.exit(0);
}

if (process.env.SMOKE_PHASE === 'agent') {
  // Issues 24 and 26 against the real bundled server (smoke.sh, phase agent).
  try {
    await agentPhase();
  } catch (e) {
    await fail(String(e?.message ?? e));
  }
  await browser.close();
  process.exit(0);
}

async function agentPhase() {
  const WS = env('SMOKE_WS');
  const norm = (t) => (t ?? '').replace(/\s+/g, ' ').trim();
  const useScript = (file) => writeFileSync(join(env('ALISIO_CONFIG_HOME'), 'config.json'), JSON.stringify({ provider: { kind: 'script', script: file } }));
  const read = (rel) => readFileSync(join(WS, rel), 'utf8');
  const runEnded = (chat) => until('the end of the run', async () => (await chat.locator('.session code').count()) > 0 && !(await chat.locator('#send').isDisabled()), 120000);
  const noErrors = async (chat) => {
    const errors = await chat.locator('.status.error').allTextContents();
    if (errors.length) await fail(`errors in the chat ${JSON.stringify(errors)}`);
  };

  // 1. A coordinator session chosen in the chat; its context passes the relay threshold, the
  // chat follows the relay into the new link, the session list shows the chain.
  step = 'coordinator';
  // the extension is up (its status item), and its commands are in the palette
  await until('the Alisio status item', async () => ((await page.locator('.statusbar').textContent().catch(() => '')) ?? '').includes('alisio'), 90000);
  for (let attempt = 0; ; attempt++) {
    try {
      await runCommand('Alisio: Start Agent Session');
      break;
    } catch (e) {
      if (attempt >= 3) throw e;
      await page.keyboard.press('Escape');
      await page.waitForTimeout(3000);
    }
  }
  const chat = await frameWith('#prompt', 'the chat webview');
  const modes = (await chat.locator('#mode option').allTextContents()).map(norm);
  if (JSON.stringify(modes) !== JSON.stringify(['as configured (session.mode)', 'default', 'coordinator'])) await fail(`mode choices ${JSON.stringify(modes)}`);
  await chat.selectOption('#mode', 'coordinator');
  await chat.fill('#prompt', 'Read big.txt');
  await chat.click('#send');
  // the script expects exactly the coordinator's tools in the first request
  const relay = chat.locator('.relay');
  await relay.first().waitFor({ state: 'visible', timeout: 120000 });
  await runEnded(chat);
  await noErrors(chat);
  const from = await relay.first().getAttribute('data-from');
  const to = await relay.first().getAttribute('data-to');
  const relayText = norm(await relay.first().textContent());
  if (relayText !== `↪ Relay: the context is nearly full; continuing in session ${to}`) await fail(`relay line ${JSON.stringify(relayText)}`);
  const answers = (await chat.locator('.msg.assistant .markdown').allTextContents()).map(norm);
  if (!answers.includes('Answered in the new link.')) await fail(`answers ${JSON.stringify(answers)}`);
  const shownSid = norm(await chat.locator('.session code').first().textContent());
  if (shownSid !== to || !from || from === to) await fail(`chat session ${shownSid}, relay ${from} → ${to}`);
  if (norm(await chat.locator('.mode.coordinator').first().textContent().catch(() => '')) !== 'coordinator session') await fail('no coordinator badge');
  if ((await chat.locator('.tool.ok[data-call="r1"]').count()) !== 1) await fail('the coordinator read_file call is not shown as ok');
  await page.locator('.tab', { hasText: 'Alisio Agent' }).first().click();
  await page.waitForTimeout(500);
  await shot('coordinator-relay');
  await chat.locator('a[data-sessions]').first().click();
  const linked = await until('the relay chain in the session list', async () => {
    const t = norm(await chat.locator(`.sessions li[data-session="${to}"]`).first().textContent({ timeout: 1000 }).catch(() => ''));
    return t.endsWith(`(relay of ${from})`) ? t : null;
  }, 30000);
  const older = norm(await chat.locator(`.sessions li[data-session="${from}"]`).first().textContent());
  if (!older.startsWith('Read big.txt ') || !older.endsWith(`→ relayed to ${to}`)) await fail(`the old link listed as ${JSON.stringify(older)}`);
  await shot('session-list-relay');
  console.log(`coordinator session ${from} relayed to ${to}; listed as ${JSON.stringify(linked)}`);

  // 2. Review before a write, in a new chat: the first hunk rejected with "Reject Hunk", the last
  // line typed over; the file holds exactly that, and the model is told (script expectation).
  step = 'review';
  useScript(env('SMOKE_SCRIPT_REVIEW'));
  await runCommand('View: Close All Editors');
  await until('the coordinator chat and its report to close', async () => (await page.locator('.tab').count()) === 0, 15000);
  await runCommand('Alisio: Start Agent Session');
  const rchat = await frameWith('.sessions li', 'a new chat with its session list');
  await rchat.fill('#prompt', 'Write r.txt');
  await rchat.click('#send');
  await rchat.locator('button[data-approve="allow-once"]').waitFor({ state: 'visible', timeout: 120000 });
  const diff = page.locator('.monaco-diff-editor').first();
  await diff.waitFor({ state: 'visible', timeout: 30000 });
  const modified = diff.locator('.editor.modified');
  const modifiedText = async () => (await modified.locator('.view-lines .view-line').allTextContents()).map(norm);
  await until('the proposal in the diff', async () => (await modifiedText()).includes('SEVEN'), 30000);
  await modified.locator('.view-lines').first().click();
  const gotoLine = async (n) => {
    await page.keyboard.press('Control+G');
    await page.waitForSelector('.quick-input-widget input', { state: 'visible', timeout: 15000 });
    await page.keyboard.type(String(n), { delay: 10 });
    await page.keyboard.press('Enter');
    await page.waitForTimeout(300);
  };
  await gotoLine(1);
  await runCommand('Alisio: Reject Hunk');
  await until('the first hunk rejected in the proposed side', async () => (await modifiedText())[0] === 'one', 15000);
  await gotoLine(7);
  await page.keyboard.press('End');
  await page.keyboard.press('Shift+Home');
  await page.keyboard.type('Seven!', { delay: 20 });
  await until('the typed line in the proposed side', async () => (await modifiedText()).includes('Seven!'), 15000);
  await shot('review-hunk');
  if (read('r.txt') !== 'one\ntwo\nthree\nfour\nfive\nsix\nseven\n') await fail('r.txt changed before the approval');
  await page.locator('.editor-actions .action-item a[aria-label="Approve once"]').first().click();
  await until('r.txt written as reviewed', () => read('r.txt') === 'one\ntwo\nthree\nFOUR\nfive\nsix\nSeven!\n', 60000);
  await runEnded(rchat);
  await noErrors(rchat);
  const edited = norm(await rchat.locator('.approval .edited').first().textContent().catch(() => ''));
  if (edited !== 'with your changes to the proposal') await fail(`approval card ${JSON.stringify(edited)}`);
  if (!(await rchat.locator('.msg.assistant .markdown').allTextContents()).map(norm).includes('Noted.')) await fail('no answer after the reviewed write (the script expects the user-edit note)');
  if ((await page.locator('.monaco-diff-editor').count()) !== 0) await fail('the review diff is still open after the approval');
  console.log(`review: hunk 1 rejected, line 7 typed over; r.txt holds ${JSON.stringify(read('r.txt'))}`);

  // 3. The Changes view: r.txt with its two hunks; Undo hunk on the first.
  step = 'changes';
  const change = rchat.locator('.changes .change[data-path="r.txt"]');
  await change.waitFor({ state: 'visible', timeout: 30000 });
  const hunks = (await change.locator('.hunk pre').allTextContents()).map((t) => t.trim());
  if (JSON.stringify(hunks) !== JSON.stringify(['-four\n+FOUR', '-seven\n+Seven!'])) await fail(`change hunks ${JSON.stringify(hunks)}`);
  await change.scrollIntoViewIfNeeded();
  await page.locator('.tab', { hasText: 'Alisio Agent' }).first().click();
  await shot('changes-view');
  await change.locator('button[data-undo="r.txt"][data-hunk-index="0"]').click();
  await until('the hunk undone in r.txt', () => read('r.txt') === 'one\ntwo\nthree\nfour\nfive\nsix\nSeven!\n', 30000);
  await until('one hunk left in the Changes view', async () => (await change.locator('.hunk').count()) === 1, 30000);
  await noErrors(rchat);
  console.log('Changes view: the first hunk of r.txt undone');

  // 4. A second turn rewrites r.txt; "Rewind to here" on its message restores the file and the chat.
  step = 'rewind';
  useScript(env('SMOKE_SCRIPT_CHANGE'));
  await rchat.fill('#prompt', 'Change it');
  await rchat.click('#send');
  await rchat.locator('button[data-approve="allow-once"][data-call="w2"]').waitFor({ state: 'visible', timeout: 120000 });
  // approved as proposed from the diff editor (the run's report may cover the chat)
  const approveOnce = page.locator('.editor-actions .action-item a[aria-label="Approve once"]').first();
  await approveOnce.waitFor({ state: 'visible', timeout: 30000 });
  await approveOnce.click();
  await until('r.txt rewritten by the second turn', () => read('r.txt') === 'changed\n', 60000);
  await runEnded(rchat);
  await page.locator('.tab', { hasText: 'Alisio Agent' }).first().click();
  const rewindLink = rchat.locator('.msg.user', { hasText: 'Change it' }).locator('a[data-rewind]');
  await rewindLink.first().waitFor({ state: 'visible', timeout: 30000 });
  if ((await rchat.locator('.msg.user a[data-rewind]').count()) !== 2) await fail('not every message has Rewind to here');
  await rewindLink.first().click();
  await until('r.txt restored by the rewind', () => read('r.txt') === 'one\ntwo\nthree\nfour\nfive\nsix\nSeven!\n', 30000);
  await until('the chat rewound to the first message', async () => (await rchat.locator('.msg.user').count()) === 1, 30000);
  const status = norm(await rchat.locator('.status.info').last().textContent());
  if (!status.startsWith('Rewound to checkpoint 2: restored r.txt')) await fail(`rewind line ${JSON.stringify(status)}`);
  const offered = await rchat.locator('#prompt').inputValue();
  if (offered !== 'Change it') await fail(`prompt box after the rewind ${JSON.stringify(offered)}`);
  const left = (await rchat.locator('.msg.user .text').allTextContents()).map(norm);
  if (JSON.stringify(left) !== JSON.stringify(['Write r.txt'])) await fail(`messages after the rewind ${JSON.stringify(left)}`);
  await page.waitForTimeout(300);
  await shot('rewind');
  console.log(`rewind: ${JSON.stringify(status)}; the chat back at its first message, the prompt offered again, in ${Date.now() - started} ms`);
}

if (process.env.SMOKE_PHASE === 'session') {
  // Chat panel, approval buttons and the Context Report view, against the scripted server.
  step = 'chat';
  await openFile('AGENTS.md');
  await runCommand('Alisio: Start Agent Session');
  const chat = await frameWith('#prompt', 'the chat webview');
  await chat.fill('#prompt', 'Write a.txt');
  await chat.click('#send');
  step = 'approval';
  await chat.waitForSelector('button[data-approve="allow-once"]', { timeout: 30000 });
  await shot('chat-approval');
  await chat.click('button[data-approve="allow-once"]');
  await chat.waitForSelector('text=Decision: allow-once.', { timeout: 30000 });
  const log = readFileSync(env('SMOKE_FAKE_LOG'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const reply = log.find((m) => m.id === 'approve-1');
  if (JSON.stringify(reply?.result) !== JSON.stringify({ decision: 'allow-once' })) await fail(`alisio/approve reply ${JSON.stringify(reply)}`);
  step = 'report';
  const report = await frameWith('svg.chart', 'the Context Report webview');
  const rows = await report.locator('table.segments tbody tr').count();
  if (rows !== 2) await fail(`${rows} segment rows`);
  const saved = await report.locator('b[data-k="tokensSaved"]').textContent();
  if (saved !== '986') await fail(`tokensSaved ${saved}`);
  const bars = await report.locator('svg.chart g.row').count();
  if (bars !== 5) await fail(`${bars} chart rows (2 kinds + 3 reasons expected)`);
  await page.waitForTimeout(500);
  await shot('chat-and-report');
  console.log(`chat, approval and Context Report checked in ${Date.now() - started} ms`);

  // Explain Context for This File: the spec/interfaces.md §1.1 example as a Markdown table.
  step = 'explain';
  await page.locator('.tab', { hasText: 'AGENTS.md' }).first().click();
  await runCommand('Alisio: Explain Context for This File');
  // Shown as a rendered Markdown preview (a webview): find the table row.
  const preview = await frameWith('tr:has-text("22768")', 'the explain preview');
  const row = await preview.locator('tr', { hasText: '22768' }).first().textContent();
  if (row.replace(/\s+/g, ' ').trim() !== '2 AGENTS.md project agents 30000 22768 beginning') await fail(`explain row ${JSON.stringify(row)}`);
  const closing = await preview.locator('text=The closest file wins on conflicts.').count();
  if (closing !== 1) await fail('no closing line in the explain preview');
  await shot('explain');

  // Show Skill Catalog: winners and shadowed copies, with scope, status and tokens.
  step = 'catalog';
  await runCommand('Alisio: Show Skill Catalog');
  await page.locator('.quick-input-list .monaco-list-row:visible', { hasText: 'pdf-tools' }).first().waitFor({ state: 'visible', timeout: 15000 });
  const catalogRows = (await page.locator('.quick-input-list .monaco-list-row:visible').allTextContents()).map((t) => t.replace(/\s+/g, ' ').trim());
  if (catalogRows.length !== 2) await fail(`catalog rows ${JSON.stringify(catalogRows)}`);
  if (!catalogRows[0].includes('project · effective · ~412 tokens') || !catalogRows[1].includes('user · shadowed by pdf-tools · ~30 tokens')) {
    await fail(`catalog rows ${JSON.stringify(catalogRows)}`);
  }
  await shot('skill-catalog');
  await page.keyboard.press('Escape');
  await page.waitForTimeout(500);

  // Toggle Skill: the quick pick lists the non-shadowed entries; picking one sends the flip.
  step = 'toggle';
  await runCommand('Alisio: Toggle Skill');
  const item = page.locator('.quick-input-list .monaco-list-row:visible', { hasText: 'pdf-tools' }).first();
  await item.waitFor({ state: 'visible', timeout: 15000 });
  const rowsShown = await page.locator('.quick-input-list .monaco-list-row:visible').count();
  if (rowsShown !== 1) await fail(`${rowsShown} skills offered (the shadowed copy must not be)`);
  await item.click();
  await until('the setSkillEnabled request', () =>
    readFileSync(env('SMOKE_FAKE_LOG'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l))
      .find((m) => m.method === 'alisio/setSkillEnabled' && JSON.stringify(m.params) === JSON.stringify({ id: 'pdf-tools', enabled: false })));
  await until('the confirmation', async () => (await page.locator('.notifications-toasts').textContent().catch(() => ''))?.includes('Skill pdf-tools disabled.'));
  console.log(`explain and toggle checked in ${Date.now() - started} ms`);
  await browser.close();
  process.exit(0);
}

if (process.env.SMOKE_PHASE === 'ground') {
  // Issues 20 and 22 in real VS Code: the Audit Sessions view over a Claude Code session file
  // of this workspace (smoke.sh wrote it into HOME), reached from the AGENTS.md lens; and the
  // Skill Triggers view of `alisio/testSkillTriggers`. Expected values: the same fixtures as
  // tests/lsp/audit.rs and neovim_test_triggers_fills_the_quickfix_list_with_the_real_server.
  const norm = (t) => (t ?? '').replace(/\s+/g, ' ').trim();
  step = 'audit-lens';
  await openFile('AGENTS.md');
  const title = 'Claude Code, last session: delivered 1/1; 1 ran an older copy';
  const lens = page.locator('.codelens-decoration a', { hasText: title });
  await until('the audit lens on AGENTS.md', () => lens.count(), 90000);
  await lens.first().click();
  step = 'audit-view';
  const pane = page.locator('.pane', { has: page.locator('.pane-header', { hasText: 'Audit Sessions' }) });
  const rows = pane.locator('.monaco-list-row');
  const shown = await until('the Audit Sessions view with the session and its finding', async () => {
    const t = (await rows.allTextContents().catch(() => [])).map(norm);
    return t.length === 2 ? t : null;
  });
  const wantRows = ['Claude Code s11 prompt · 1 finding', 'ran an older copy of AGENTS.md'];
  if (JSON.stringify(shown.map((t) => t.replace(/\s/g, ''))) !== JSON.stringify(wantRows.map((t) => t.replace(/\s/g, '')))) {
    await fail(`audit rows ${JSON.stringify(shown)}`);
  }
  await shot('audit-sessions');
  console.log(`Audit Sessions: ${JSON.stringify(shown)}`);

  step = 'skill-triggers';
  await openFile('.agents/skills/pdf-tools/SKILL.md');
  await runCommand('Alisio: Test Skill Triggers');
  const tv = await frameWith('ul.misrouted', 'the Skill Triggers view', 60000);
  const hosts = (await tv.locator('h2').allTextContents()).map(norm);
  const misses = (await tv.locator('ul.misrouted li').allTextContents()).map(norm);
  const plots = 'draw plots of these tables';
  const wantMisses = [
    `pdf-tools: “${plots}” went to chart-maker (expected pdf-tools)`,
    'pdf-tools: “extract tables from this pdf” went to (none) (expected pdf-tools)',
    `pdf-tools: “${plots}” went to (none) (expected pdf-tools)`,
    `pdf-tools: “${plots}” went to chart-maker (expected pdf-tools)`,
    `pdf-tools: “${plots}” went to chart-maker (expected pdf-tools)`,
    `pdf-tools: “${plots}” went to chart-maker (expected pdf-tools)`,
  ];
  if (JSON.stringify(hosts) !== JSON.stringify(['alisio', 'claude-code', 'codex', 'gemini', 'copilot'])) await fail(`hosts ${JSON.stringify(hosts)}`);
  if (JSON.stringify(misses) !== JSON.stringify(wantMisses)) await fail(`misrouted ${JSON.stringify(misses)}`);
  await shot('skill-triggers');
  console.log(`Skill Triggers: ${hosts.length} hosts, ${misses.length} prompts elsewhere (${Date.now() - started} ms)`);
  await browser.close();
  process.exit(0);
}

if (process.env.SMOKE_PHASE === 'trust') {
  step = 'untrusted';
  await openFile('.alisio/config.json');
  await page.waitForTimeout(6000);
  if (diagnostics('/.alisio/config.json').length !== 0) await fail('a diagnostic on the project configuration of an untrusted workspace');
  await shot('untrusted');
  step = 'grant-trust';
  await runCommand('Workspaces: Manage Workspace Trust');
  const trust = page.locator('.workspace-trust-editor .monaco-button', { hasText: /^Trust$/ }).first();
  await trust.waitFor({ state: 'visible', timeout: 20000 });
  await trust.click();
  step = 'trusted';
  const d = await until('the config-invalid diagnostic after granting trust', () => diagnostics('/.alisio/config.json').find((x) => x.code === 'config-invalid'), 30000);
  if (d.message !== 'context.maxBytes must be an integer from 1024 to 1048576; got 1023') await fail(`message ${d.message}`);
  console.log(`untrusted: no project diagnostics; after granting trust: config-invalid (${Date.now() - started} ms)`);
  await browser.close();
  process.exit(0);
}

// 1. The extension activates and the server's config-invalid diagnostic arrives and is drawn.
step = 'config-invalid';
await openFile('.alisio/config.json');
const want = 'context.maxBytes must be an integer from 1024 to 1048576; got 1023';
const d = await until('the config-invalid diagnostic', () => diagnostics('/.alisio/config.json').find((x) => x.code === 'config-invalid'), 90000);
if (d.message !== want) await fail(`message ${JSON.stringify(d.message)}`);
if (JSON.stringify(d.range) !== JSON.stringify([0, 25, 0, 29])) await fail(`range ${JSON.stringify(d.range)}`);
await until('an error squiggle', () => page.locator('.squiggly-error').count());
const status = await until('the Alisio status item', async () => {
  const t = await page.locator('.statusbar').textContent().catch(() => '');
  return t.includes('alisio') ? t : null;
});
console.log(`config-invalid diagnostic and squiggle after ${Date.now() - started} ms; status bar has "alisio"`);
await shot('config-invalid');

if (FULL) {
  // 2. SKILL.md: the skill-name-format diagnostic on the name value, and the code lens.
  step = 'skill-diagnostic';
  await openFile('.agents/skills/Bad--Name/SKILL.md');
  const s = await until('skill-name-format', () => diagnostics('/Bad--Name/SKILL.md').find((x) => x.code === 'skill-name-format'), 60000);
  if (s.message !== 'name must be lowercase letters, digits and single hyphens') await fail(`message ${s.message}`);
  if (JSON.stringify(s.range) !== JSON.stringify([1, 6, 1, 15])) await fail(`range ${JSON.stringify(s.range)}`);
  await until('an error squiggle', () => page.locator('.squiggly-error').count());
  step = 'skill-lens';
  await until('the SKILL.md code lens', async () => (await page.locator('.codelens-decoration').allTextContents()).some((t) => t.includes('not loaded: name must be lowercase letters, digits and single hyphens')));
  await shot('skill');

  // 3. AGENTS.md: the instruction lens opens the explain view. D = ws, .agents, .agents/skills,
  //    .agents/skills/Bad--Name, .alisio, sub, sub/deeper: 7 directories.
  step = 'agents-lens';
  await openFile('AGENTS.md');
  const lens = page.locator('.codelens-decoration a', { hasText: 'agents · 7 directories · loaded in full · ~4 tokens' });
  await until('the AGENTS.md code lens', () => lens.count());
  await lens.first().click();
  const explained = await frameWith('tr:has-text("AGENTS.md")', 'the explain preview of AGENTS.md');
  const explainRow = (await explained.locator('tr', { hasText: 'AGENTS.md' }).first().textContent()).replace(/\s+/g, ' ').trim();
  if (explainRow !== '1 AGENTS.md project agents 13 13 none') await fail(`explain row ${JSON.stringify(explainRow)}`);
  await shot('lens-explain');

  // The chat, approval and Context Report views are checked in phase `session` (smoke.sh).
}

console.log(`all checks passed in ${Date.now() - started} ms`);
await browser.close();
