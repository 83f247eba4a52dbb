import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AuditSessionsResult } from '../src/lsp_ext';
import { auditTree } from '../src/views/audit';

const RESULT: AuditSessionsResult = {
  enabled: true,
  running: false,
  sessions: [
    {
      file: '/h/.claude/projects/-w/s2.jsonl', client: 'Claude Code', format: 'claude-code', session: '3f2a91c0-aaaa', cwd: '/w',
      clientVersion: '2.1.332', prompts: 2, deliveries: 1, requests: 3,
      findings: [
        { kind: 'import-not-expanded', path: '/w/AGENTS.md', message: '/w/AGENTS.md: `@docs/style.md` was not expanded' },
        { kind: 'reference-unread', path: '/w/.claude/skills/greet/SKILL.md', message: 'skill `greet`: `ref.md` was never read after it was invoked' },
      ],
    },
    { file: '/h/.codex/sessions/r.jsonl', client: 'Codex', format: 'codex', session: 'cx', cwd: null, clientVersion: null, prompts: 1, deliveries: 1, requests: 1, findings: [] },
  ],
};

const rel = (p: string) => p.replace(/^\/w\//, '');

test('one node per session, its findings as children that open the file', () => {
  const t = auditTree(RESULT, rel);
  assert.deepEqual(
    t.map((n) => [n.label, n.description, n.icon, n.path]),
    [
      ['Claude Code 3f2a91c0', '2 prompts · 2 findings', 'warning', '/h/.claude/projects/-w/s2.jsonl'],
      ['Codex cx', '1 prompt · as predicted', 'pass', '/h/.codex/sessions/r.jsonl'],
    ],
  );
  assert.deepEqual(
    t[0].children.map((c) => [c.label, c.icon, c.path]),
    [
      ['AGENTS.md: `@docs/style.md` was not expanded', 'warning', '/w/AGENTS.md'],
      ['skill `greet`: `ref.md` was never read after it was invoked', 'info', '/w/.claude/skills/greet/SKILL.md'],
    ],
  );
  assert.equal(t[0].tooltip, '/h/.claude/projects/-w/s2.jsonl\ncwd /w\nversion 2.1.332\n1 instruction delivery, 3 requests');
  assert.equal(t[1].tooltip, '/h/.codex/sessions/r.jsonl\nno cwd recorded\n1 instruction delivery, 1 request');
});

test('off, empty, running and not yet answered each say so', () => {
  assert.deepEqual(auditTree({ enabled: false, running: false, sessions: [] }).map((n) => [n.label, n.description]), [
    ['Session audit is off', 'alisio.audit.enabled'],
  ]);
  assert.deepEqual(auditTree({ enabled: true, running: false, sessions: [] }).map((n) => n.label), [
    'No recent Claude Code or Codex session of this workspace',
  ]);
  assert.deepEqual(auditTree({ ...RESULT, running: true }).map((n) => n.label), [
    'Auditing recent sessions…', 'Claude Code 3f2a91c0', 'Codex cx',
  ]);
  assert.deepEqual(auditTree(undefined).map((n) => n.icon), ['loading~spin']);
});
