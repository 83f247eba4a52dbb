import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';

// The repository's snippets/ (copied into the extension at build time).
const DIR = resolve(__dirname, '..', '..', '..', '..', 'server', 'snippets');

function load(file: string): Record<string, { prefix: string | string[]; body: string[]; description: string }> {
  return JSON.parse(readFileSync(join(DIR, file), 'utf8'));
}

/** Expands a snippet body as accepting every default would: `${n:x}` → x, `${n|a,b|}` → a, `$n` → ''. */
function expand(body: string[]): string {
  let s = body.join('\n');
  for (let i = 0; i < 10; i++) {
    s = s.replace(/\$\{\d+:([^${}]*)\}/g, '$1').replace(/\$\{\d+\|([^,|]*)[^}]*\|\}/g, '$1');
  }
  return s.replace(/\$\d+/g, '');
}

function frontmatter(text: string): Record<string, string> {
  const lines = text.split('\n');
  assert.equal(lines[0], '---');
  const end = lines.indexOf('---', 1);
  assert.ok(end > 1, 'frontmatter is closed');
  const out: Record<string, string> = {};
  for (const l of lines.slice(1, end)) {
    const m = /^([A-Za-z0-9_-]+): (.*)$/.exec(l);
    assert.ok(m, `frontmatter line ${JSON.stringify(l)} is a plain key: value`);
    out[m[1]] = m[2];
  }
  return out;
}

test('the new-skill snippet expands to frontmatter the alisio profile accepts', () => {
  const s = load('skill.code-snippets')['Agent Skill (SKILL.md)'];
  const fm = frontmatter(expand(s.body));
  assert.deepEqual(Object.keys(fm), ['name', 'description']);
  assert.match(fm.name, /^[a-z0-9]+(-[a-z0-9]+)*$/);
  assert.ok([...fm.name].length <= 64);
  assert.ok(fm.description.trim().length > 0 && [...fm.description].length <= 1024);
  assert.ok(!/: /.test(fm.description), 'a plain scalar without ": " stays valid YAML');
});

test('the AGENTS.md snippet starts with a heading and has the build/test section', () => {
  const text = expand(load('agents-md.code-snippets')['AGENTS.md skeleton'].body);
  assert.match(text, /^# Project name\n/);
  assert.ok(text.includes('## Build and test\n\n- Build: `make build`\n- Test: `make test`'));
});

test('the config snippet expands to JSON whose values are the documented defaults', () => {
  const text = expand(load('alisio-config.code-snippets')['alisio project configuration (.alisio/config.json)'].body);
  assert.deepEqual(JSON.parse(text), {
    context: { claudeMdFallback: false, maxBytes: 32768, governor: 'off', elide: { minAgeTurns: 2, epochMessages: 32 }, invariants: { maxChars: 4000 } },
    skills: ['../shared/skills'],
    skillOverrides: { 'skill-id': { enabled: false } },
  });
});
