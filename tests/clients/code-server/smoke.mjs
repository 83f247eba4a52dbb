// Drives code-server in headless Chromium (playwright-core, the system /usr/bin/chromium) and
// checks what a user of the Alisio extension sees. Called by smoke.sh; exits non-zero with a
// message on the first failed check, after saving a screenshot of that moment.
import { readFileSync, existsSync } from 'node:fs';
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

  // Explain Context for This File: the interfaces.md §1.1 example as a Markdown table.
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
