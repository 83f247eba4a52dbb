import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ChatModel, renderChatHtml, renderMeter, renderSessionsHtml } from '../src/views/chatModel';
import { renderMarkdown } from '../src/views/markdown';
import { transcriptItems, userParts } from '../src/views/transcript';

test('hostile model output renders inert: no script element, no event handler attribute, no javascript: link', () => {
  const html = renderMarkdown('Hi <script>alert(1)</script> and <img src=x onerror="alert(2)"> [x](javascript:alert(3))\n\n<iframe src="https://e.x"></iframe>');
  assert.ok(!/<script/i.test(html), html);
  assert.ok(!/<img/i.test(html), html);
  assert.ok(!/<iframe/i.test(html), html);
  assert.ok(!/href="javascript:/i.test(html), html);
  assert.ok(html.includes('&lt;script&gt;alert(1)&lt;/script&gt;'), html);
  assert.ok(html.includes('&lt;img src=x onerror=&quot;alert(2)&quot;&gt;'), html);
  // the same through the chat: the assistant's streamed text is Markdown, never raw HTML
  const m = new ChatModel();
  m.addUser('q');
  m.apply({ type: 'run_started', sessionId: 's', data: {} });
  m.apply({ type: 'text_delta', sessionId: 's', data: { turn: 0, text: '<img src=x onerror=alert(1)><script>x()</script>' } });
  const chat = renderChatHtml(m);
  assert.ok(!/<img|<script/i.test(chat), chat);
});

test('an answer renders as Markdown with code blocks that carry Copy and Insert at cursor', () => {
  const html = renderMarkdown('Use **this**:\n\n```rust\nfn main() { println!("<hi>"); }\n```\n');
  assert.equal(
    html,
    '<p>Use <strong>this</strong>:</p>\n' +
      '<div class="codeblock"><div class="code-actions"><span class="lang">rust</span><button data-code="copy" class="secondary">Copy</button>' +
      '<button data-code="insert" class="secondary">Insert at cursor</button></div>' +
      '<pre><code class="language-rust">fn main() { println!(&quot;&lt;hi&gt;&quot;); }\n</code></pre></div>\n',
  );
});

test('the context meter shows the next request, the share saved and the cached share once reported', () => {
  assert.equal(renderMeter(undefined), '');
  assert.equal(
    renderMeter({ tokensBefore: 2000, tokensAfter: 1500, tokensSaved: 500, elided: 3 }),
    '<div class="governed meter" title="From the last context_governed event">Next request: <b>1500</b> tokens · saved 25% (500 of 2000, 3 elided)</div>',
  );
  assert.match(renderMeter({ tokensBefore: 100, tokensAfter: 100, tokensSaved: 0, elided: 0, cachedTokens: 60 }), /saved 0% \(0 of 100, 0 elided\) · cached 60%<\/div>$/);
  const m = new ChatModel();
  m.addUser('q');
  m.apply({ type: 'context_governed', sessionId: 's', data: { tokensBefore: 10, tokensAfter: 8, tokensSaved: 2, elided: 1 } });
  m.apply({ type: 'context_governed', sessionId: 'c', parentSessionId: 's', data: { tokensBefore: 99, tokensAfter: 99, tokensSaved: 0, elided: 0 } });
  assert.deepEqual(m.governed, { tokensBefore: 10, tokensAfter: 8, tokensSaved: 2, elided: 1, cachedTokens: undefined });
  // The event's cached part is its replay's (ContextGovernedData.replay.governed.cachedTokens).
  m.apply({ type: 'context_governed', sessionId: 's', data: { tokensBefore: 10, tokensAfter: 8, tokensSaved: 2, elided: 1, replay: { off: { cachedTokens: 9 }, governed: { cachedTokens: 6 } } } });
  assert.deepEqual(m.governed, { tokensBefore: 10, tokensAfter: 8, tokensSaved: 2, elided: 1, cachedTokens: 6 });
});

test('earlier sessions list title, time and message count; a transcript becomes the chat again', () => {
  assert.equal(
    renderSessionsHtml([{ sessionId: 'a1', title: 'Fix <b>', updatedAt: '2026-12-01T20:00:01.123Z', messages: 4 }]),
    '<div class="sessions"><div class="who">Earlier sessions</div><ul><li data-session="a1"><a href="#" data-open="a1">Fix &lt;b&gt;</a> <span class="meta">2026-12-01 20:00:01 · 4 messages</span></li></ul></div>',
  );
  const t = {
    schemaVersion: 1,
    session: { id: 'a1', title: 'Fix' },
    messages: [
      { seq: 1, role: 'user', kind: 'message', compacted: false, message: { role: 'user', content: [
        { type: 'text', text: '<attachment path="src/a.rs" lines="2-3">\nx\n</attachment>\n\n' },
        { type: 'text', text: 'Fix it' },
      ] } },
      { seq: 2, role: 'assistant', kind: 'message', compacted: false, message: { role: 'assistant', content: [
        { type: 'text', text: 'Writing.' }, { type: 'tool_call', id: 'w1', name: 'write_file', arguments: '{"path":"a"}' },
      ] } },
      { seq: 3, role: 'tool', kind: 'message', compacted: false, message: { role: 'tool', callId: 'w1', isError: false, outcome: 'ok', content: [] } },
      { seq: 4, role: 'assistant', kind: 'message', compacted: false, message: { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] } },
    ],
  };
  assert.deepEqual(transcriptItems(t), [
    { kind: 'user', text: 'Fix it', attachments: ['src/a.rs:2-3'] },
    { kind: 'assistant', text: 'Writing.', child: false },
    { kind: 'tool', id: 'w1', name: 'write_file', args: '{"path":"a"}', status: 'ok', outcome: 'ok', child: false },
    { kind: 'assistant', text: 'Done.', child: false },
  ]);
  assert.deepEqual(userParts([{ type: 'text', text: '<attachment path="a &quot;b&quot;.md">\n# A\n</attachment>\n\n' }]), { text: '', attachments: ['a "b".md'] });
  const m = new ChatModel();
  m.load('a1', t);
  assert.equal(m.sessionId, 'a1');
  assert.ok(m.owns({ type: 'run_started', sessionId: 'a1' }, 'a1'));
});

test('retry is offered once a run ended, with the prompt and attachments of the last turn', () => {
  const m = new ChatModel();
  m.addUser('why?', [{ uri: 'file:///w/a.md', label: 'a.md' }]);
  assert.ok(!renderChatHtml(m).includes('data-retry'), 'not while running');
  m.finish({ sessionId: 's', status: 'completed' });
  assert.ok(renderChatHtml(m).includes('<button data-retry="1" class="secondary">Retry</button>'));
  assert.deepEqual(m.last, { prompt: 'why?', attachments: [{ uri: 'file:///w/a.md', label: 'a.md' }] });
  assert.ok(renderChatHtml(m).includes('<span class="chip">a.md</span>'));
});

test('the Context Report view shows the usage ledger when the report carries one', async () => {
  const { renderUsageHtml } = await import('../src/views/render');
  assert.equal(renderUsageHtml(null), '');
  assert.equal(
    renderUsageHtml({ perTool: { read_file: { seen: 12, used: 7, reread: 2 }, search_text: { seen: 3, used: 0, reread: 0 } }, notAttributable: 20 }),
    '<div class="table-wrap usage"><table class="ledger"><caption>Tool results used by the model (usage ledger)</caption>' +
      '<thead><tr><th>tool</th><th>seen</th><th>used</th><th>reread</th><th>unused</th></tr></thead><tbody>' +
      '<tr><td>read_file</td><td class="num">12</td><td class="num">7</td><td class="num">2</td><td class="num">3</td></tr>' +
      '<tr><td>search_text</td><td class="num">3</td><td class="num">0</td><td class="num">0</td><td class="num">3</td></tr>' +
      '</tbody></table><p>20 results not attributable</p></div>',
  );
});

test('an empty usage ledger is one line, not an empty table', async () => {
  const { renderUsageHtml } = await import('../src/views/render');
  assert.equal(renderUsageHtml({ perTool: {}, notAttributable: 1 }), '<div class="usage"><p>Usage ledger: no attributable tool results yet; 1 not attributable.</p></div>');
});
