// The Skill Triggers view: the result of `alisio/testSkillTriggers` (spec/skills.md §10, the
// offline trigger lab) as one table per host (precision, recall, counts) and the prompts that
// went elsewhere. The HTML is built by a pure function (unit-tested); the panel only shows it.
import type { TriggerHostResult } from '../lsp_ext';
import { escapeHtml } from './render';

function pct(v: number | null): string {
  return v === null ? '–' : `${(v * 100).toFixed(1)}%`;
}

/** The view's body for `results`. */
export function renderTriggersHtml(results: TriggerHostResult[]): string {
  if (results.length === 0) {
    return '<p>No result.</p>';
  }
  return results
    .map((h) => {
      const rows = h.skills
        .map(
          (s) =>
            `<tr><td>${escapeHtml(s.name)}${s.listed ? '' : ' <em>(not listed)</em>'}</td><td>${pct(s.precision)}</td><td>${pct(s.recall)}</td>` +
            `<td>${s.truePositives}</td><td>${s.falsePositives}</td><td>${s.falseNegatives}</td><td>${s.trueNegatives}</td></tr>`,
        )
        .join('');
      const misses = h.misrouted
        .map((m) => `<li>${escapeHtml(m.skill)}: “${escapeHtml(m.prompt)}” went to ${escapeHtml(m.routed ?? '(none)')} (expected ${escapeHtml(m.expected)})</li>`)
        .join('');
      return (
        `<h2>${escapeHtml(h.host)}</h2>` +
        `<table><thead><tr><th>skill</th><th>precision</th><th>recall</th><th>tp</th><th>fp</th><th>fn</th><th>tn</th></tr></thead><tbody>${rows}</tbody></table>` +
        (misses ? `<ul class="misrouted">${misses}</ul>` : '<p>Every prompt went where its eval file says.</p>')
      );
    })
    .join('');
}
