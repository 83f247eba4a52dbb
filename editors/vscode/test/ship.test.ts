import assert from 'node:assert/strict';
import { test } from 'node:test';
import { confirmMessage, InitProposal } from '../src/initAgentsMd';
import { menuItems, statusText, statusTooltip } from '../src/statusBar';

test('the status bar names the state, the host and the profile', () => {
  const s = { state: 'running' as const, trusted: false, path: '/bin/alisio-ls' };
  assert.equal(statusText(s, 'codex', 'spec'), '$(book) alisio · codex · spec');
  assert.equal(statusText({ ...s, state: 'error' }, 'alisio', 'alisio'), '$(error) alisio · alisio · alisio');
  assert.equal(
    statusTooltip(s, 'codex', 'spec'),
    'alisio-ls: running\nHost: codex · Profile: spec\n/bin/alisio-ls\nWorkspace not trusted: project skills and project configuration are not loaded.',
  );
});

test('the status menu offers restart, output, explain and trust help', () => {
  const items = menuItems({ state: 'stopped', trusted: true });
  assert.deepEqual(
    items.map((i) => i.command),
    ['alisio.restart', 'alisio.showOutput', 'alisio.explainFile', 'workbench.trust.manage'],
  );
  assert.equal(items[3].label, '$(shield) Workspace trusted: manage trust…');
  assert.equal(menuItems({ state: 'running', trusted: false })[3].label, '$(workspace-untrusted) Workspace not trusted: what trust enables…');
});

test('the init confirmation says what will be written', () => {
  const p: InitProposal = { uri: 'file:///w/AGENTS.md', exists: true, current: 'x', proposed: 'y', sha256: 'a', changed: true, written: false };
  assert.equal(confirmMessage(p), 'Alisio: update the project facts section of AGENTS.md as shown? Nothing outside its markers changes.');
  assert.equal(confirmMessage({ ...p, exists: false, current: null }), 'Alisio: create AGENTS.md as shown?');
  assert.equal(confirmMessage({ ...p, changed: false }), 'Alisio: AGENTS.md is up to date; nothing to write.');
});
