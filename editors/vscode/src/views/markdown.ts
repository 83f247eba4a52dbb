// Markdown of the agent's answers, rendered with markdown-it (a kept library, bundled by
// esbuild) before it reaches the chat webview. HTML in the model's text is off (`html: false`:
// `<script>` and `<img onerror>` come out as text), links go through markdown-it's
// `validateLink` (no `javascript:`, `vbscript:`, `file:` or non-image `data:` URLs), and the
// webview's Content-Security-Policy allows no script but its own nonce'd one anyway. Fenced
// code blocks get Copy and Insert-at-cursor buttons.
import MarkdownIt from 'markdown-it';

const md = new MarkdownIt({ html: false, linkify: true, breaks: false });

md.renderer.rules.fence = (tokens, idx) => {
  const t = tokens[idx];
  const lang = t.info.trim().split(/\s+/)[0] ?? '';
  const cls = lang ? ` class="language-${md.utils.escapeHtml(lang)}"` : '';
  return (
    `<div class="codeblock"><div class="code-actions">` +
    (lang ? `<span class="lang">${md.utils.escapeHtml(lang)}</span>` : '') +
    `<button data-code="copy" class="secondary">Copy</button><button data-code="insert" class="secondary">Insert at cursor</button></div>` +
    `<pre><code${cls}>${md.utils.escapeHtml(t.content)}</code></pre></div>\n`
  );
};

// Links open outside the webview (VS Code routes them); never a target in the panel itself.
const defaultLink = md.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
  tokens[idx].attrSet('rel', 'noopener noreferrer');
  return defaultLink(tokens, idx, options, env, self);
};

/** The HTML of one answer. */
export function renderMarkdown(text: string): string {
  return md.render(text);
}
