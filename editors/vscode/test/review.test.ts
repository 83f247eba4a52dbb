// Issue 26 in the VS Code chat: the review before a write (spec/sessions.md §4.4), the Changes
// view (§13.4), "Rewind to here" (§13.3) and the context chips (§4.6).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Change, CheckpointInfo, RewindParams, RewindResult } from '../src/lsp_ext';
import { ChatBackend, ChatPanel, chipTokens, selectedLines } from '../src/views/chat';
import { attachmentBlock, ChatModel, renderChangesHtml, renderChatHtml, renderChipsHtml, rewindSummary } from '../src/views/chatModel';
import { hunkAt, hunkText, lineHunks, replaceHunkAt, splitLines } from '../src/views/hunks';
import { reviewReply } from '../src/views/preview';
import { panels } from './vscode-stub';

const OLD = 'one\ntwo\nthree\nfour\nfive\nsix\nseven\n';
const PROPOSED = 'ONE\ntwo\nthree\nFOUR\nfive\nsix\nSEVEN\n';

test('line hunks are the maximal runs of changed lines, as the server numbers them', () => {
  assert.deepEqual(splitLines('a\nb'), ['a\n', 'b']);
  assert.deepEqual(lineHunks(OLD, PROPOSED), [
    { oldStart: 0, oldLines: 1, newStart: 0, newLines: 1 },
    { oldStart: 3, oldLines: 1, newStart: 3, newLines: 1 },
    { oldStart: 6, oldLines: 1, newStart: 6, newLines: 1 },
  ]);
  assert.deepEqual(lineHunks('', 'hello'), [{ oldStart: 0, oldLines: 0, newStart: 0, newLines: 1 }]);
  assert.deepEqual(lineHunks('a\nb\nc\n', 'a\nc\n'), [{ oldStart: 1, oldLines: 1, newStart: 1, newLines: 0 }]);
  assert.deepEqual(lineHunks('a\nb\n', 'a\nb\n'), []);
  // a last line without its newline is a changed line
  assert.deepEqual(lineHunks('a\nb', 'a\nb\n'), [{ oldStart: 1, oldLines: 1, newStart: 1, newLines: 1 }]);
  assert.equal(hunkText(OLD, PROPOSED, { oldStart: 3, oldLines: 1, newStart: 3, newLines: 1 }), '-four\n+FOUR');
});

test('Reject Hunk puts the file\'s lines back under the cursor, Accept Hunk the proposal\'s; a typed line stays', () => {
  // reject the first hunk (cursor on line 0)
  const rejected = replaceHunkAt(OLD, PROPOSED, 0);
  assert.equal(rejected, 'one\ntwo\nthree\nFOUR\nfive\nsix\nSEVEN\n');
  // no hunk on an unchanged line
  assert.equal(replaceHunkAt(OLD, rejected as string, 1), undefined);
  // the user types over line 6, then takes line 3 as proposed after typing over it too
  const typed = (rejected as string).replace('SEVEN', 'Seven!').replace('FOUR', 'typed');
  const accepted = replaceHunkAt(PROPOSED, typed, 3);
  assert.equal(accepted, 'one\ntwo\nthree\nFOUR\nfive\nsix\nSeven!\n');
  // a deleted line is found at the line after it
  assert.deepEqual(hunkAt(lineHunks('a\nb\nc\n', 'a\nc\n'), 1), { oldStart: 1, oldLines: 1, newStart: 1, newLines: 0 });
  assert.equal(replaceHunkAt('a\nb\nc\n', 'a\nc\n', 1), 'a\nb\nc\n');
});

test('the approval reply carries the reviewed text only when it is not the proposal, and never with a deny', () => {
  assert.deepEqual(reviewReply('allow-once', PROPOSED, PROPOSED), { decision: 'allow-once' });
  assert.deepEqual(reviewReply('allow-once', PROPOSED, undefined), { decision: 'allow-once' });
  assert.deepEqual(reviewReply('allow-session', PROPOSED, 'one\n'), { decision: 'allow-session', content: 'one\n' });
  assert.deepEqual(reviewReply('deny', PROPOSED, 'one\n'), { decision: 'deny' });
  // the chat card says the user's version was approved
  const m = new ChatModel();
  m.request({ sessionId: 's', callId: 'w1', tool: 'write_file', effect: 'write', summary: 'Write a.txt (5 bytes)' });
  m.answer('w1', 'allow-once');
  const item = m.approval('w1');
  if (item) item.edited = true;
  assert.ok(renderChatHtml(m).includes('<span class="decision">allow-once</span> <span class="edited">with your changes to the proposal</span>'), renderChatHtml(m));
});

const change: Change = {
  path: 'r.txt', status: 'modified', before: OLD, after: 'one\ntwo\nthree\nFOUR\nfive\nsix\nSeven!\n', truncated: false,
  hunks: [{ oldStart: 3, oldLines: 1, newStart: 3, newLines: 1 }, { oldStart: 6, oldLines: 1, newStart: 6, newLines: 1 }], sha256: 'ab', userChanged: false,
};

test('the Changes view lists each file with Keep and Undo and each hunk with its lines and Undo hunk', () => {
  assert.equal(renderChangesHtml([]), '');
  assert.equal(
    renderChangesHtml([change, { ...change, path: 'big.bin', status: 'added', before: null, after: null, truncated: true, hunks: [], userChanged: true }]),
    '<div class="changes"><div class="who">Changes · 2 files <button data-keep-all="1" class="secondary">Keep all</button></div>' +
      '<div class="change" data-path="r.txt"><div class="file"><span class="status modified">modified</span> <code>r.txt</code> <a href="#" data-change-diff="r.txt">Diff</a> ' +
      '<button data-keep="r.txt">Keep</button> <button class="secondary" data-undo="r.txt">Undo</button></div>' +
      '<div class="hunk" data-hunk="0"><pre>-four\n+FOUR</pre><button class="secondary" data-undo="r.txt" data-hunk-index="0">Undo hunk</button></div>' +
      '<div class="hunk" data-hunk="1"><pre>-seven\n+Seven!</pre><button class="secondary" data-undo="r.txt" data-hunk-index="1">Undo hunk</button></div></div>' +
      '<div class="change" data-path="big.bin"><div class="file"><span class="status added">added</span> <code>big.bin</code> ' +
      '<span class="user-changed" title="Undo is refused: it would overwrite your changes">changed by you since</span> <a href="#" data-change-diff="big.bin">Diff</a> ' +
      '<button data-keep="big.bin">Keep</button> <button class="secondary" data-undo="big.bin">Undo</button></div>' +
      '<div class="hunk none">No text to show (over 1 MiB or not UTF-8): keep or undo the whole file.</div></div></div>',
  );
});

interface Calls {
  run: any[];
  undo: any[];
  keep: any[];
  rewind: RewindParams[];
  confirm: { message: string; items: string[] }[];
}

function fakeBackend(calls: Calls, opts: { confirm?: string; rewind?: (p: RewindParams) => RewindResult; checkpoints?: CheckpointInfo[] } = {}): ChatBackend {
  let changes: Change[] = [change];
  return {
    runSession: async (params) => {
      calls.run.push(params);
      return { sessionId: 's1', status: 'completed', text: '' };
    },
    openReport: () => {},
    changes: async () => changes,
    keep: async (sessionId, paths) => {
      calls.keep.push({ sessionId, paths });
      changes = [];
    },
    undo: async (sessionId, path, hunks) => {
      calls.undo.push({ sessionId, path, hunks });
      if (path === 'gone.txt') throw new Error('Undo refused: gone.txt was changed again after the session changed it; undoing would overwrite those changes');
      changes = [{ ...change, hunks: [change.hunks[1]] }];
    },
    checkpoints: async () => opts.checkpoints ?? [],
    rewind: async (p) => {
      calls.rewind.push(p);
      return opts.rewind!(p);
    },
    confirm: async (message, items) => {
      calls.confirm.push({ message, items });
      return opts.confirm;
    },
    transcript: async () => ({
      schemaVersion: 1,
      session: { id: 's1' },
      messages: [{ seq: 1, role: 'user', kind: 'message', compacted: false, message: { role: 'user', content: [{ type: 'text', text: 'Write r.txt' }] } }],
    }),
  };
}

const newCalls = (): Calls => ({ run: [], undo: [], keep: [], rewind: [], confirm: [] });
const tick = () => new Promise((r) => setTimeout(r, 0));

test('Undo hunk sends one flag per hunk, Undo the file none; Keep names the file; a refusal shows in the chat', async () => {
  const calls = newCalls();
  const chat = ChatPanel.open(fakeBackend(calls));
  const panel = panels[panels.length - 1];
  panel.receive({ type: 'ready' });
  await chat.send('Write r.txt');
  assert.ok(panel.lastHtml().includes('<div class="change" data-path="r.txt">'), panel.lastHtml());
  panel.receive({ type: 'undo', path: 'r.txt', hunk: '0' });
  await tick();
  await tick();
  assert.deepEqual(calls.undo[0], { sessionId: 's1', path: 'r.txt', hunks: [true, false] });
  assert.ok(panel.lastHtml().includes('<pre>-seven\n+Seven!</pre>') && !panel.lastHtml().includes('<pre>-four'), panel.lastHtml());
  panel.receive({ type: 'undo', path: 'r.txt' });
  await tick();
  await tick();
  assert.deepEqual(calls.undo[1], { sessionId: 's1', path: 'r.txt', hunks: undefined });
  panel.receive({ type: 'keep', path: 'r.txt' });
  await tick();
  await tick();
  assert.deepEqual(calls.keep[0], { sessionId: 's1', paths: ['r.txt'] });
  assert.ok(!panel.lastHtml().includes('class="changes"'), 'kept: nothing left to list');
  chat.model.changes = [{ ...change, path: 'gone.txt', userChanged: true }];
  panel.receive({ type: 'undo', path: 'gone.txt' });
  await tick();
  await tick();
  assert.ok(panel.lastHtml().includes('<div class="status error">Undo refused: gone.txt was changed again after the session changed it; undoing would overwrite those changes</div>'), panel.lastHtml());
  panel.dispose();
});

const cps: CheckpointInfo[] = [
  { checkpoint: 1, createdAt: 't1', promptSeq: 1, prompt: 'Write r.txt', files: true, active: true },
  { checkpoint: 2, createdAt: 't2', promptSeq: 5, prompt: 'Change it', files: true, active: true },
];

test('checkpoints put "Rewind to here" on the messages they were recorded before, matched by prompt', () => {
  const m = new ChatModel();
  m.addUser('[Handoff from session a]');
  m.addUser('Write r.txt');
  m.addUser('Change it');
  m.running = false;
  m.assignCheckpoints([{ ...cps[0], checkpoint: 9, active: false }, ...cps]);
  const users = m.items.filter((i) => i.kind === 'user');
  assert.deepEqual(users.map((u) => (u as { checkpoint?: number }).checkpoint), [undefined, 1, 2]);
  const html = renderChatHtml(m);
  assert.ok(html.includes('<div class="msg user" data-checkpoint="2"><div class="who">You <a href="#" class="rewind" data-rewind="2" title="Restore the files and the conversation to before this message">Rewind to here</a></div>'), html);
  m.running = true;
  assert.ok(!renderChatHtml(m).includes('data-rewind'), 'no rewind while the session runs');
});

const rewound = (p: RewindParams, conflicts: string[]): RewindResult => ({
  sessionId: 's1', checkpoint: p.checkpoint, rewound: p.resolve !== 'ask' || conflicts.length === 0, prompt: 'Change it',
  files: [{ path: 'r.txt', action: 'restore', conflict: false }, ...conflicts.map((c) => ({ path: c, action: 'restore' as const, conflict: true }))],
  conflicts, kept: p.resolve === 'keep' ? conflicts : [], unrestorable: [], failed: [], messages: { removed: 3, restored: 0 },
});

test('Rewind to here lists the files the user changed and asks; Keep my changes rewinds the rest, the chat and the prompt box', async () => {
  const calls = newCalls();
  const chat = ChatPanel.open(fakeBackend(calls, { confirm: 'Keep my changes', checkpoints: cps, rewind: (p) => rewound(p, ['notes.md']) }));
  const panel = panels[panels.length - 1];
  panel.receive({ type: 'ready' });
  await chat.send('Write r.txt');
  panel.receive({ type: 'rewind', checkpoint: 2 });
  for (let i = 0; i < 6; i++) await tick();
  assert.deepEqual(calls.rewind.map((r) => r.resolve), ['ask', 'keep']);
  assert.deepEqual(calls.confirm, [{ message: 'Rewind to before "Change it"? You changed this file after that point: notes.md.', items: ['Overwrite my changes', 'Keep my changes'] }]);
  assert.ok(panel.posted.some((m) => m.type === 'prompt' && m.text === 'Change it'), 'the rewound prompt is offered again');
  const html = panel.lastHtml();
  assert.ok(html.includes('<div class="status info">Rewound to checkpoint 2: restored r.txt; kept your version of notes.md; 3 messages rewound.</div>'), html);
  // the chat is the transcript as it is now: one user message
  assert.equal(chat.model.items.filter((i) => i.kind === 'user').length, 1);
  panel.dispose();
});

test('a dismissed rewind question changes nothing; without conflicts no question is asked', async () => {
  const calls = newCalls();
  const chat = ChatPanel.open(fakeBackend(calls, { confirm: undefined, rewind: (p) => rewound(p, ['notes.md']) }));
  const panel = panels[panels.length - 1];
  panel.receive({ type: 'ready' });
  await chat.send('Write r.txt');
  await chat.rewindTo(1);
  assert.deepEqual(calls.rewind.map((r) => r.resolve), ['ask']);
  assert.ok(panel.lastHtml().includes('<div class="status info">Rewind cancelled: nothing changed.</div>'), panel.lastHtml());
  panel.dispose();
  const calls2 = newCalls();
  const chat2 = ChatPanel.open(fakeBackend(calls2, { rewind: (p) => rewound(p, []) }));
  panels[panels.length - 1].receive({ type: 'ready' });
  await chat2.send('Write r.txt');
  await chat2.rewindTo(1);
  assert.deepEqual(calls2.rewind.map((r) => r.resolve), ['ask']);
  assert.equal(calls2.confirm.length, 0);
  assert.deepEqual(rewindSummary(rewound({ sessionId: 's1', checkpoint: 1 }, [])), { text: 'Rewound to checkpoint 1: restored r.txt; 3 messages rewound.', level: 'info' });
  panels[panels.length - 1].dispose();
});

test('chips persist until removed, every prompt carries them, and the meter shows what they cost', async () => {
  const calls = newCalls();
  const backend = fakeBackend(calls);
  backend.attachmentText = async () => '# Rules\n\nAlways answer briefly.\n';
  backend.openEditors = () => [{ uri: 'file:///w/AGENTS.md', label: 'AGENTS.md' }, { uri: 'file:///w/b.md', label: 'b.md' }];
  const chat = ChatPanel.open(backend);
  const panel = panels[panels.length - 1];
  panel.receive({ type: 'ready' });
  chat.attach({ uri: 'file:///w/AGENTS.md', label: 'AGENTS.md:3-3', range: { start: { line: 2, character: 0 }, end: { line: 2, character: 22 } } });
  panel.receive({ type: 'attachOpen' });
  assert.deepEqual(chat.pending.map((a) => a.label), ['AGENTS.md:3-3', 'AGENTS.md', 'b.md']);
  await tick();
  await tick();
  // the cost is that of the blocks the server builds: ceil(length / 4) each summed
  const line = attachmentBlock('AGENTS.md', 'Always answer briefly.\n', [3, 3]);
  assert.equal(line, '<attachment path="AGENTS.md" lines="3-3">\nAlways answer briefly.\n</attachment>\n\n');
  const whole = attachmentBlock('AGENTS.md', '# Rules\n\nAlways answer briefly.\n');
  const b = attachmentBlock('b.md', '# Rules\n\nAlways answer briefly.\n');
  const total = Math.ceil(line.length / 4) + Math.ceil(whole.length / 4) + Math.ceil(b.length / 4);
  assert.equal(total, 58);
  const last = [...panel.posted].reverse().find((m) => m.type === 'attachments');
  assert.ok(last.html.endsWith(` <span class="chip-cost meter" data-tokens="${total}">chips: +${total} tokens with each prompt</span>`), last.html);
  // the context meter shows them before sending
  assert.ok(panel.lastHtml().includes(`<div class="session"><a href="#" data-sessions="1">Sessions</a></div><div class="governed meter" title="The attachment blocks of the chips, as the server estimates tokens">Next request: + <b data-k="chips">${total}</b> for the chips</div>`), panel.lastHtml());
  await chat.send('one');
  await chat.send('two');
  assert.deepEqual(calls.run.map((r) => r.attachments.length), [3, 3]);
  panel.receive({ type: 'detach', index: 0 });
  await chat.send('three');
  assert.deepEqual(calls.run[2].attachments, [{ uri: 'file:///w/AGENTS.md' }, { uri: 'file:///w/b.md' }]);
  // each message shows what it carried
  const users = chat.model.items.filter((i) => i.kind === 'user').map((u) => (u as { attachments?: string[] }).attachments);
  assert.deepEqual(users, [['AGENTS.md:3-3', 'AGENTS.md', 'b.md'], ['AGENTS.md:3-3', 'AGENTS.md', 'b.md'], ['AGENTS.md', 'b.md']]);
  assert.equal(renderChipsHtml([]), '');
  // "Add Active File": the editor used last, once
  backend.activeFile = () => ({ uri: 'file:///w/c.md', label: 'c.md' });
  panel.receive({ type: 'attachActive' });
  panel.receive({ type: 'attachActive' });
  assert.deepEqual(chat.pending.map((a) => a.label), ['AGENTS.md', 'b.md', 'c.md']);
  assert.deepEqual(selectedLines('a\nb\nc', { start: { line: 1, character: 0 }, end: { line: 2, character: 0 } }), { text: 'b\n', first: 2, last: 2 });
  assert.equal(chipTokens({ uri: 'u', label: 'x.md' }, 'abc'), Math.ceil('<attachment path="x.md">\nabc\n</attachment>\n\n'.length / 4));
  panel.dispose();
});
