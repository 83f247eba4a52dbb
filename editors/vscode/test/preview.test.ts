import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ChatModel, renderChatHtml } from '../src/views/chatModel';
import { callIdOf, commandLine, diffable, diffTitle, previewPaths, renderPreviewHtml } from '../src/views/preview';

test('the two sides of a diff are found again from either path, call ids with slashes included', () => {
  const p = previewPaths('call/1 x', 'src/main.rs');
  assert.deepEqual(p, { before: '/call%2F1%20x/before/src/main.rs', after: '/call%2F1%20x/after/src/main.rs' });
  assert.equal(callIdOf(p.before), 'call/1 x');
  assert.equal(callIdOf(p.after), 'call/1 x');
  assert.equal(callIdOf('/src/main.rs'), undefined);
});

test('a file preview is diffable unless truncated; the title says new file or edit', () => {
  const edit = { path: 'a.txt', before: 'a\n', after: 'b\n' };
  const created = { path: 'n.md', before: null, after: '# N\n' };
  const big = { path: 'big.txt', before: null, after: null, truncated: true, newFile: false };
  assert.equal(diffable(edit), true);
  assert.equal(diffable(created), true);
  assert.equal(diffable(big), false);
  assert.equal(diffable({ command: 'ls', cwd: '.' }), false);
  assert.equal(diffTitle(edit, 'edit_file'), 'a.txt (current ↔ proposed) · edit_file — approve?');
  assert.equal(diffTitle(created, 'write_file'), 'n.md (new file) · write_file — approve?');
  assert.equal(renderPreviewHtml('c1', big), '<div class="preview">big.txt: the change is over 1 MiB; no preview is shown.</div>');
  assert.equal(
    renderPreviewHtml('c1', created),
    '<div class="preview">n.md (new file, 0 → 2 lines) <a href="#" data-diff="c1">Show diff</a></div>',
  );
});

test('a process preview shows the command line quoted as typed, and its directory, escaped', () => {
  const p = { command: 'echo', args: ['a b', "it's", '--x=1'], cwd: 'sub/<d>' };
  assert.equal(commandLine(p), `echo 'a b' 'it'\\''s' --x=1`);
  assert.equal(renderPreviewHtml('c', p), `<div class="preview"><pre>$ echo &#39;a b&#39; &#39;it&#39;\\&#39;&#39;s&#39; --x=1</pre>in sub/&lt;d&gt;</div>`);
});

test('the chat keeps the preview of the request even when the event came first', () => {
  const m = new ChatModel();
  m.addUser('edit');
  m.apply({ type: 'run_started', sessionId: 's1', data: {} });
  m.apply({ type: 'approval_requested', sessionId: 's1', data: { callId: 'w1', tool: 'write_file', effect: 'write', summary: 'Write a.txt (5 bytes)', paths: ['a.txt'] } });
  m.request({ sessionId: 's1', callId: 'w1', tool: 'write_file', effect: 'write', summary: 'Write a.txt (5 bytes)', paths: ['a.txt'], preview: { path: 'a.txt', before: null, after: 'hello' } });
  const html = renderChatHtml(m);
  assert.match(html, /a\.txt \(new file, 0 → 1 lines\) <a href="#" data-diff="w1">Show diff<\/a>/);
  assert.match(html, /data-approve="allow-once" data-call="w1"/);
});
