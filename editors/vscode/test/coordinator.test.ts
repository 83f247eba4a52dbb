// Issue 24 in the VS Code chat: a mode choice that starts a coordinator session (none sent:
// the configuration's session.mode applies) and the relay chain (spec/sessions.md §12.1, §12.5).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ChatBackend, ChatPanel, RunResult } from '../src/views/chat';
import { ChatModel, renderChatHtml, renderSessionsHtml } from '../src/views/chatModel';
import { panels } from './vscode-stub';

function backend(calls: any[], result: Partial<RunResult> = {}): ChatBackend {
  return {
    runSession: async (params) => {
      calls.push(params);
      return { sessionId: 's1', status: 'completed', text: '', ...result };
    },
    listSessions: async () => [],
    openReport: () => {},
  };
}

test('the chat sends no mode until one is chosen, then the chosen mode with each prompt', async () => {
  const calls: any[] = [];
  const chat = ChatPanel.open(backend(calls));
  const panel = panels[panels.length - 1];
  panel.receive({ type: 'ready' });
  await chat.send('first');
  assert.deepEqual(calls[0], { prompt: 'first', sessionId: undefined, attachments: undefined });
  panel.receive({ type: 'mode', mode: 'coordinator' });
  await chat.send('second');
  assert.deepEqual(calls[1], { prompt: 'second', sessionId: 's1', attachments: undefined, mode: 'coordinator' });
  panel.receive({ type: 'mode', mode: 'bogus' });
  await chat.send('third');
  assert.equal('mode' in calls[2], false, JSON.stringify(calls[2]));
  panel.receive({ type: 'mode', mode: 'default' });
  await chat.send('fourth');
  assert.equal(calls[3].mode, 'default');
  panel.dispose();
});

test('a coordinator run shows its badge; a relay shows the hand-over and the chat follows the new link', () => {
  const m = new ChatModel();
  m.mode = 'coordinator';
  m.addUser('Read big.txt');
  m.apply({ type: 'run_started', sessionId: 'old', data: {} });
  assert.equal(m.sessionId, 'old');
  assert.ok(renderChatHtml(m).includes('<div class="mode coordinator"'), renderChatHtml(m));
  m.apply({ type: 'session_relayed', sessionId: 'old', data: { to: 'new', structured: true, atFraction: 0.7 } });
  assert.equal(m.sessionId, 'new');
  assert.deepEqual(m.items[m.items.length - 1], { kind: 'relay', from: 'old', to: 'new' });
  // the new link's events belong to this chat now, the old link's no longer
  assert.ok(m.owns({ type: 'run_started', sessionId: 'new', data: { relayOf: 'old' } }, 'new'));
  assert.ok(!m.owns({ type: 'text_delta', sessionId: 'old' }, 'old'));
  m.apply({ type: 'run_started', sessionId: 'new', data: { relayOf: 'old' } });
  m.apply({ type: 'text_delta', sessionId: 'new', data: { turn: 0, text: 'Answered in the new link.' } });
  const html = renderChatHtml(m);
  assert.ok(html.includes('<div class="relay" data-from="old" data-to="new">↪ Relay: the context is nearly full; continuing in session <code>new</code></div>'), html);
  assert.ok(html.includes('Session <code>new</code>'), html);
  // a sub-session's relay event is not the chat's (only roots relay)
  m.apply({ type: 'session_relayed', sessionId: 'c', parentSessionId: 'new', data: { to: 'x' } });
  assert.equal(m.sessionId, 'new');
});

test('the session list marks the relay chain, each link opening its session', () => {
  const html = renderSessionsHtml([
    { sessionId: 'b2', title: 'Read big.txt', updatedAt: '2026-12-01T20:05:00Z', messages: 2, relayOf: 'a1' },
    { sessionId: 'a1', title: 'Read big.txt', updatedAt: '2026-12-01T20:04:00Z', messages: 5, relayedTo: 'b2' },
  ]);
  assert.equal(
    html,
    '<div class="sessions"><div class="who">Earlier sessions</div><ul>' +
      '<li data-session="b2"><a href="#" data-open="b2">Read big.txt</a> <span class="meta">2026-12-01 20:05:00 · 2 messages</span> <span class="relay-of">(relay of <a href="#" data-open="a1">a1</a>)</span></li>' +
      '<li data-session="a1"><a href="#" data-open="a1">Read big.txt</a> <span class="meta">2026-12-01 20:04:00 · 5 messages</span> <span class="relayed-to">→ relayed to <a href="#" data-open="b2">b2</a></span></li>' +
      '</ul></div>',
  );
});

test('a loaded session shows the mode it ran in', () => {
  const m = new ChatModel();
  m.load('a1', { schemaVersion: 1, session: { id: 'a1', options: { mode: 'coordinator' } }, messages: [] });
  assert.equal(m.sessionMode, 'coordinator');
  m.load('a2', { schemaVersion: 1, session: { id: 'a2', options: {} }, messages: [] });
  assert.equal(m.sessionMode, undefined);
});
