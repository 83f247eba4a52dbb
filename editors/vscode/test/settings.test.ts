import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import { didChangeConfigurationParams, initializationOptions } from '../src/settings';
import { SettingsSync } from '../src/sync';
import * as vscode from './vscode-stub';

beforeEach(() => vscode.reset());

const cfg = () => vscode.workspace.getConfiguration('alisio');

test('defaults map to trusted plus the non-null defaults only', () => {
  vscode.state.settings = {
    'alisio.host': 'alisio',
    'alisio.profile': 'alisio',
    'alisio.context.claudeMdFallback': null,
    'alisio.context.maxBytes': null,
    'alisio.codeLens.instructionsOnEveryFile': false,
    'alisio.audit.enabled': true,
    'alisio.audit.sessions': 5,
    'alisio.watcher': 'auto',
    'alisio.provider.kind': null,
    'alisio.server.path': null,
    'alisio.trace.server': 'off',
  };
  assert.deepEqual(initializationOptions(cfg(), false), {
    trusted: false,
    host: 'alisio',
    profile: 'alisio',
    codeLens: { instructionsOnEveryFile: false },
    audit: { enabled: true, sessions: 5 },
    watcher: 'auto',
  });
});

test('every setting lands at its interfaces.md §3 place', () => {
  vscode.state.settings = {
    'alisio.host': 'codex',
    'alisio.profile': 'spec',
    'alisio.context.claudeMdFallback': true,
    'alisio.context.maxBytes': 65536,
    'alisio.context.governor': 'shadow',
    'alisio.context.elide.minAgeTurns': 3,
    'alisio.context.elide.epochMessages': 0,
    'alisio.context.invariants.maxChars': 5000,
    'alisio.codeLens.instructionsOnEveryFile': true,
    'alisio.audit.enabled': false,
    'alisio.audit.sessions': 12,
    'alisio.watcher': 'server',
    'alisio.provider.kind': 'openai',
    'alisio.provider.baseUrl': 'http://127.0.0.1:11434/v1',
    'alisio.provider.model': 'qwen2.5-coder',
    'alisio.provider.apiKeyEnv': 'OPENAI_API_KEY',
    'alisio.server.path': '/opt/alisio-ls',
    'alisio.trace.server': 'verbose',
  };
  assert.deepEqual(initializationOptions(cfg(), true), {
    trusted: true,
    host: 'codex',
    profile: 'spec',
    context: {
      claudeMdFallback: true,
      maxBytes: 65536,
      governor: 'shadow',
      elide: { minAgeTurns: 3, epochMessages: 0 },
      invariants: { maxChars: 5000 },
    },
    codeLens: { instructionsOnEveryFile: true },
    audit: { enabled: false, sessions: 12 },
    watcher: 'server',
    provider: { kind: 'openai', baseUrl: 'http://127.0.0.1:11434/v1', model: 'qwen2.5-coder', apiKeyEnv: 'OPENAI_API_KEY' },
  });
});

test('zero and false are kept; null and empty strings are omitted', () => {
  vscode.state.settings = {
    'alisio.context.elide.epochMessages': 0,
    'alisio.context.claudeMdFallback': false,
    'alisio.provider.baseUrl': '',
    'alisio.provider.model': null,
  };
  assert.deepEqual(initializationOptions(cfg(), true), { trusted: true, context: { claudeMdFallback: false, elide: { epochMessages: 0 } } });
});

test('invalid values pass through for the server to report', () => {
  vscode.state.settings = { 'alisio.context.maxBytes': 1023, 'alisio.context.governor': 'ON' };
  assert.deepEqual(initializationOptions(cfg(), true).context, { maxBytes: 1023, governor: 'ON' });
});

test('didChangeConfiguration carries the options under the alisio section', () => {
  assert.deepEqual(didChangeConfigurationParams({ trusted: true, host: 'alisio' }), { settings: { alisio: { trusted: true, host: 'alisio' } } });
});

test('SettingsSync.options reads trust from the workspace', () => {
  vscode.state.trusted = true;
  vscode.state.settings = { 'alisio.watcher': 'off' };
  assert.deepEqual(SettingsSync.options(), { trusted: true, watcher: 'off' });
});
