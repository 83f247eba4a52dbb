import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TriggerHostResult } from '../src/lsp_ext';
import { renderTriggersHtml } from '../src/views/triggers';

const RESULTS: TriggerHostResult[] = [
  {
    host: 'codex',
    skills: [
      { name: 'pdf-tools', uri: 'file:///w/a/SKILL.md', listed: true, truePositives: 1, falsePositives: 0, falseNegatives: 1, trueNegatives: 2, precision: 1, recall: 0.5 },
      { name: 'gone <x>', uri: 'file:///w/b/SKILL.md', listed: false, truePositives: 0, falsePositives: 0, falseNegatives: 2, trueNegatives: 0, precision: null, recall: 0 },
    ],
    misrouted: [{ skill: 'pdf-tools', uri: 'file:///w/a/SKILL.md', prompt: 'draw plots of "these"', expected: 'pdf-tools', routed: 'chart-maker', score: 2.5 }],
  },
  { host: 'gemini', skills: [], misrouted: [] },
];

test('the Skill Triggers view: one table per host, escaped, with the misrouted prompts', () => {
  const html = renderTriggersHtml(RESULTS);
  assert.equal(
    html,
    '<h2>codex</h2><table><thead><tr><th>skill</th><th>precision</th><th>recall</th><th>tp</th><th>fp</th><th>fn</th><th>tn</th></tr></thead><tbody>' +
      '<tr><td>pdf-tools</td><td>100.0%</td><td>50.0%</td><td>1</td><td>0</td><td>1</td><td>2</td></tr>' +
      '<tr><td>gone &lt;x&gt; <em>(not listed)</em></td><td>–</td><td>0.0%</td><td>0</td><td>0</td><td>2</td><td>0</td></tr></tbody></table>' +
      '<ul class="misrouted"><li>pdf-tools: “draw plots of &quot;these&quot;” went to chart-maker (expected pdf-tools)</li></ul>' +
      '<h2>gemini</h2><table><thead><tr><th>skill</th><th>precision</th><th>recall</th><th>tp</th><th>fp</th><th>fn</th><th>tn</th></tr></thead><tbody></tbody></table>' +
      '<p>Every prompt went where its eval file says.</p>',
  );
  assert.equal(renderTriggersHtml([]), '<p>No result.</p>');
});
