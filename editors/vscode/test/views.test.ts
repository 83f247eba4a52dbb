import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LENS_COMMANDS, rewriteLensCommand } from '../src/commands';
import { ChatModel, renderChatHtml } from '../src/views/chatModel';
import { barChart, ContextReport, escapeHtml, renderExplainMarkdown, renderReportHtml, savedByReason, skillItem, tokensByKind } from '../src/views/render';

// spec/governor.md §6.5's example, abridged further.
const REPORT: ContextReport = {
  mode: 'on',
  measured: true,
  sessionId: 's-41',
  policyVersion: 1,
  request: 7,
  settings: { minAgeTurns: 2, epochMessages: 32, maxChars: 4000 },
  messages: 70,
  eligibleMessages: 64,
  compacted: false,
  segments: [
    { index: 0, kind: 'system', origin: 'system', tokens: 812, criticality: 'pinned', reason: 'system_prompt' },
    { index: 1, kind: 'instructions', origin: 'AGENTS.md', tokens: 300, criticality: 'pinned', reason: 'instruction_file' },
    {
      index: 9, kind: 'tool_result', origin: 'src/a.ts', message: 4, tool: 'read_file', callId: 'c1', tokens: 1000,
      criticality: 'low', reason: 'elided', used: 'used', elided: { reason: 'superseded_read', by: 'c2', tokensSaved: 986 },
    },
    { index: 12, kind: 'tool_result', origin: 'src/<b>.ts', tokens: 40, criticality: 'high', reason: 'last_turn' },
  ],
  segmentsOmitted: 0,
  totals: {
    segments: 97, tokensBefore: 40210, tokensAfter: 39224, tokensSaved: 986, elided: 1,
    byReason: { superseded_read: 1, stale_bg_output: 0, duplicate_search: 0 },
    byCriticality: { pinned: 6, high: 9, normal: 81, low: 1 },
  },
  invariants: { sent: false, total: 0, byKind: { instruction: 0, goal: 0, plan: 0, criterion: 0, grant: 0 }, omitted: 0 },
};

test('lens commands of the server map to the extension commands, arguments kept', () => {
  assert.deepEqual(rewriteLensCommand({ title: 't', command: 'alisio.explainContext', arguments: ['file:///ws/a.md'] }), {
    title: 't', command: 'alisio.explainFile', arguments: ['file:///ws/a.md'],
  });
  assert.deepEqual(Object.keys(LENS_COMMANDS).sort(), ['alisio.explainContext', 'alisio.showAuditSessions', 'alisio.showContextReport', 'alisio.showSkill', 'alisio.toggleSkill']);
  assert.equal(rewriteLensCommand({ title: 'not loaded: x', command: '' }).command, '');
  assert.equal(rewriteLensCommand(undefined), undefined);
});

test('tokens by kind sum the listed segments in request order', () => {
  assert.deepEqual(tokensByKind(REPORT), [
    { label: 'system', value: 812 },
    { label: 'instructions', value: 300 },
    { label: 'tool_result', value: 1040 },
  ]);
});

test('tokens saved by reason always list the three reasons with the totals counts', () => {
  assert.deepEqual(savedByReason(REPORT), [
    { label: 'superseded_read', value: 986, note: '(1 result)' },
    { label: 'stale_bg_output', value: 0, note: '(0 results)' },
    { label: 'duplicate_search', value: 0, note: '(0 results)' },
  ]);
});

test('a policy-2 report lists all seven reasons in its order, denied and expired included', () => {
  const byReason = { superseded_read: 0, stale_bg_output: 0, duplicate_search: 0, oversized: 1, aged_output: 2, expired: 0, denied: 1 };
  const r: ContextReport = {
    ...REPORT,
    totals: { ...REPORT.totals!, byReason },
    segments: [
      { index: 3, kind: 'tool_result', origin: 'x', tokens: 20, criticality: 'low', reason: 'elided', callId: 'c1', elided: { reason: 'aged_output', by: 'c9', tokensSaved: 400 } },
      { index: 5, kind: 'tool_result', origin: 'y', tokens: 12, criticality: 'low', reason: 'elided', callId: 'c2', elided: { reason: 'denied', by: 'c3', tokensSaved: 30 } },
    ],
  };
  assert.deepEqual(savedByReason(r), [
    { label: 'superseded_read', value: 0, note: '(0 results)' },
    { label: 'stale_bg_output', value: 0, note: '(0 results)' },
    { label: 'duplicate_search', value: 0, note: '(0 results)' },
    { label: 'oversized', value: 0, note: '(1 result)' },
    { label: 'aged_output', value: 400, note: '(2 results)' },
    { label: 'expired', value: 0, note: '(0 results)' },
    { label: 'denied', value: 30, note: '(1 result)' },
  ]);
});

test('the bar chart scales the longest bar to 200 px and escapes labels', () => {
  const svg = barChart('T<1>', [{ label: 'a&b', value: 50 }, { label: 'c', value: 100 }, { label: 'z', value: 0 }], 'kind');
  assert.match(svg, /^<svg class="chart" role="img" aria-label="T&lt;1&gt;"/);
  assert.match(svg, /data-label="a&amp;b" data-value="50"><text x="0" y="38" class="label">a&amp;b<\/text><rect x="130" y="27" width="100"/);
  assert.match(svg, /data-label="c" data-value="100">.*?<rect x="130" y="49" width="200"/);
  assert.match(svg, /data-label="z" data-value="0">.*?width="0"/);
});

test('the report view has one table row per listed segment, escaped, with the elision', () => {
  const html = renderReportHtml(REPORT);
  const rows = html.match(/<tr class="crit-/g) ?? [];
  assert.equal(rows.length, 4);
  assert.ok(html.includes('<tr class="crit-low"><td class="num">9</td><td>tool_result</td><td class="origin">src/a.ts</td><td class="num">1000</td><td>low</td><td>elided</td><td>superseded_read by c2 (−986)</td></tr>'));
  assert.ok(html.includes('src/&lt;b&gt;.ts'));
  assert.ok(!html.includes('src/<b>.ts'));
  assert.ok(html.includes('tokens before <b data-k="tokensBefore">40210</b> · saved <b data-k="tokensSaved">986</b> · after <b data-k="tokensAfter">39224</b>'));
  assert.ok(html.includes('pinned 6 · high 9 · normal 81 · low 1'));
  assert.equal((html.match(/<svg /g) ?? []).length, 2);
});

test('a report in mode off says nothing was measured', () => {
  const html = renderReportHtml({ mode: 'off', measured: false, sessionId: 's-1' });
  assert.equal(
    html,
    '<p class="off">The Context Governor is <b>off</b> for session <code>s-1</code>: nothing is measured. Set <code>alisio.context.governor</code> to <code>shadow</code> or <code>on</code> to see the report.</p>',
  );
});

test('explain renders interfaces.md §1.1 as a Markdown table with the notice', () => {
  const md = renderExplainMarkdown({
    path: 'src/lsp/handlers.rs', host: 'alisio', hostVersion: null, maxBytes: 32768,
    files: [
      { path: 'AGENTS.md', scope: 'project', kind: 'agents', bytes: 30000, keptBytes: 22768, truncation: 'beginning' },
      { path: 'src/AGENTS.override.md', scope: 'project', kind: 'override', bytes: 10000, keptBytes: 10000, truncation: 'none' },
    ],
    omittedBytes: 8132,
    notice: '[truncated: 8132 bytes]',
  });
  assert.equal(md, [
    '# Instructions for src/lsp/handlers.rs', '', 'Host `alisio`, budget 32768 bytes.', '',
    '| # | file | scope | kind | bytes | kept | truncation |', '|---|---|---|---|---:|---:|---|',
    '| 1 | AGENTS.md | project | agents | 30000 | 22768 | beginning |',
    '| 2 | src/AGENTS.override.md | project | override | 10000 | 10000 | none |',
    '', 'Omitted: 8132 bytes.', '', 'Notice the model sees:', '', '```text', '[truncated: 8132 bytes]', '```', '',
    'The closest file wins on conflicts.', '',
  ].join('\n'));
  assert.equal(renderExplainMarkdown({ path: 'x.md', host: 'alisio', hostVersion: null, maxBytes: 32768, files: [] }).split('\n')[4], 'No instruction file applies to x.md.');
});

test('explain renders the startup cost table of interfaces.md §1.1 after the files', () => {
  const entry = (name: string, file: string, text: string | null, bytes: number, shadowedBy: string | null = null) => ({
    name, file, scope: 'project' as const, description: 'd', detail: '', text, loaded: shadowedBy === null, shadowedBy, hidden: null, bytes,
  });
  const md = renderExplainMarkdown({
    path: 'AGENTS.md', host: 'claude-code', hostVersion: '2.1.332', maxBytes: null, files: [],
    startup: {
      host: 'claude-code',
      families: [
        { family: 'agents', channel: 'agent listing', entries: [entry('x', '.claude/agents/x.md', '- x: Reviews code. (Tools: Read, Grep)', 38)],
          notLoaded: [{ file: '.claude/agents/bad.md', reason: 'no frontmatter' }], bytes: 38, tokens: 10 },
        { family: 'commands', channel: 'skill listing', entries: [
          entry('y', '.claude/commands/y.md', '- y: Deploy the app', 19),
          entry('deploy', '.claude/commands/deploy.md', '- deploy: d', 0, '.claude/skills/deploy/SKILL.md'),
        ], notLoaded: [], bytes: 19, tokens: 5 },
        { family: 'mcp', channel: 'MCP servers', entries: [entry('docs', '.mcp.json', null, 0)], notLoaded: [], bytes: 0, tokens: 0 },
      ],
      bytes: 57, tokens: 15,
    },
  });
  assert.equal(md, [
    '# Instructions for AGENTS.md', '', 'Host `claude-code`, budget null bytes.', '', 'No instruction file applies to AGENTS.md.', '',
    '## Startup cost (host `claude-code`)', '', 'What the host sends before the first prompt for subagents, slash commands and MCP servers.', '',
    '| family | name | bytes | sent in | file |', '|---|---|---:|---|---|',
    '| agents | x | 38 | agent listing | .claude/agents/x.md |',
    '| commands | y | 19 | skill listing | .claude/commands/y.md |',
    '| commands | deploy | not sent | skill listing | .claude/commands/deploy.md (shadowed by .claude/skills/deploy/SKILL.md) |',
    '| mcp | docs | tools at connect | MCP servers | .mcp.json |',
    '| agents | - | not loaded | no frontmatter | .claude/agents/bad.md |',
    '', 'Total: 57 bytes (~15 tokens); MCP tool definitions come from each server when it connects and are not counted.', '',
  ].join('\n'));
  const none = { host: 'codex' as const, families: [], bytes: 0, tokens: 0 };
  assert.equal(renderExplainMarkdown({ path: 'x.md', host: 'codex', hostVersion: '0.171.0', maxBytes: 32768, files: [], startup: none }).split('\n').slice(6).join('\n'),
    '## Startup cost (host `codex`)\n\nWhat the host sends before the first prompt for subagents, slash commands and MCP servers.\n\nNo subagents, commands or MCP servers.\n');
  assert.equal(renderExplainMarkdown({ path: 'x.md', host: 'alisio', hostVersion: null, maxBytes: 32768, files: [], startup: null }), '# Instructions for x.md\n\nHost `alisio`, budget 32768 bytes.\n\nNo instruction file applies to x.md.\n');
});

test('skill catalog items show scope, status and tokens', () => {
  const base = { id: 'pdf-tools', name: 'pdf-tools', displayId: 'pdf-tools', description: 'PDFs.', scope: 'project', enabled: true, effective: true, shadowedBy: null, approximateTokens: 41 };
  assert.deepEqual(skillItem(base), { label: 'pdf-tools', description: 'project · effective · ~41 tokens', detail: 'PDFs.' });
  assert.equal(skillItem({ ...base, enabled: false }).description, 'project · disabled · ~41 tokens');
  assert.equal(skillItem({ ...base, shadowedBy: 'user:pdf-tools' }).description, 'project · shadowed by user:pdf-tools · ~41 tokens');
});

test('the chat model streams text, tracks tools and approvals, and ends the run', () => {
  const m = new ChatModel();
  m.addUser('fix it');
  const ev = (seq: number, type: string, data: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ schemaVersion: 1, runId: 'r1', sessionId: 's1', seq, type, data, ...extra });
  assert.equal(m.owns(ev(1, 'run_started', {})), true, 'a running chat without a session takes the first run');
  m.apply(ev(1, 'run_started', { model: 'm', provider: 'script', governor: 'on', resumed: false, messages: 0, cwd: '/ws' }));
  assert.equal(m.sessionId, 's1');
  m.apply(ev(2, 'text_delta', { turn: 1, text: 'Let me ' }));
  m.apply(ev(3, 'text_delta', { turn: 1, text: 'look.' }));
  m.apply(ev(4, 'tool_started', { id: 'c1', name: 'write_file', arguments: '{"path":"a.txt","content":"x"}', effect: 'write' }));
  m.apply(ev(5, 'approval_requested', { callId: 'c1', tool: 'write_file', effect: 'write', summary: 'Write a.txt (1 bytes)', paths: ['a.txt'] }));
  m.request({ sessionId: 's1', callId: 'c1', tool: 'write_file', effect: 'write', summary: 'Write a.txt (1 bytes)', paths: ['a.txt'] });
  let html = renderChatHtml(m);
  assert.equal((html.match(/data-approve=/g) ?? []).length, 3, 'one question, three buttons');
  m.answer('c1', 'allow-once');
  m.apply(ev(6, 'approval_resolved', { callId: 'c1', decision: 'allow-once', source: 'user' }));
  m.apply(ev(7, 'tool_completed', { id: 'c1', name: 'write_file', isError: false, outcome: 'ok', durationMs: 3, preview: 'Wrote 1 bytes' }));
  m.apply(ev(8, 'context_governed', { tokensBefore: 100, tokensAfter: 90, tokensSaved: 10, elided: 1 }));
  m.apply(ev(9, 'text_delta', { turn: 2, text: 'Done.' }));
  m.apply(ev(10, 'run_completed', { text: 'Done.', turns: 2 }));
  m.finish({ sessionId: 's1', status: 'completed' });
  assert.equal(m.running, false);
  assert.deepEqual(m.items.map((i) => i.kind), ['user', 'assistant', 'tool', 'approval', 'assistant']);
  assert.equal(m.items[1].kind === 'assistant' && m.items[1].text, 'Let me look.');
  html = renderChatHtml(m);
  assert.equal((html.match(/data-approve=/g) ?? []).length, 0, 'answered: no buttons left');
  assert.ok(html.includes('<span class="decision">allow-once</span>'));
  assert.ok(html.includes('<span class="mark">✓</span> <b>write_file</b>'));
  assert.ok(html.includes('data-report="s1">Context Report</a>'));
  assert.ok(html.includes('Next request: <b>90</b> tokens · saved 10% (10 of 100, 1 elided)</div>'), html);
  assert.equal(m.owns(ev(11, 'text_delta', {}, { sessionId: 's2' })), false);
  assert.equal(m.owns(ev(12, 'text_delta', {}, { sessionId: 's9', parentSessionId: 's1' })), true, 'sub-agent events belong to the parent chat');
});

test('the chat shows the sandbox of the run and its fallback', () => {
  const m = new ChatModel();
  m.addUser('hi');
  m.apply({ type: 'run_started', sessionId: 's1', data: { sandbox: { mode: 'workspace-write', network: false } } });
  assert.deepEqual(m.sandbox, { mode: 'workspace-write', network: false });
  assert.ok(renderChatHtml(m).includes('<div class="sandbox on" title="process sandbox">sandbox: workspace-write</div>'));
  m.apply({ type: 'sandbox_unavailable', sessionId: 's1', data: { requested: 'workspace-write', mode: 'off', reason: 'no Landlock' } });
  const html = renderChatHtml(m);
  assert.ok(html.includes('<div class="sandbox off" title="no Landlock">no sandbox</div>'), html);
  assert.ok(html.includes('Sandbox workspace-write unavailable (no Landlock): processes run unsandboxed'), html);
  m.apply({ type: 'run_started', sessionId: 's1', data: { sandbox: null } });
  assert.equal(m.sandbox, undefined);
});

test('html escaping covers the five characters', () => {
  assert.equal(escapeHtml(`<a href="x">'&'</a>`), '&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
});
