import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import { Discovery } from '../src/discovery';
import { InitOptions } from '../src/settings';
import { ServerControl, SettingsSync } from '../src/sync';
import * as vscode from './vscode-stub';

beforeEach(() => vscode.reset());

class FakeControl implements ServerControl {
  running: string | undefined;
  restarts: string[] = [];
  sent: { settings: { alisio: InitOptions } }[] = [];
  logs: string[] = [];
  runningPath() {
    return this.running;
  }
  async restart(reason: string) {
    this.restarts.push(reason);
  }
  sendConfiguration(p: { settings: { alisio: InitOptions } }) {
    this.sent.push(p);
  }
  log(m: string) {
    this.logs.push(m);
  }
}

const BUNDLED = '/ext/server/linux-x64/alisio-ls';

/** Discovery as the extension would see it: bundled when untrusted, `trustedPath` when trusted. */
function discovery(trustedPath: string | undefined, asked: boolean[]) {
  return (trusted: boolean): Discovery => {
    asked.push(trusted);
    if (!trusted) return { ok: true, path: BUNDLED, source: 'bundled' };
    return trustedPath ? { ok: true, path: trustedPath, source: 'setting' } : { ok: true, path: BUNDLED, source: 'bundled' };
  };
}

const flush = () => new Promise((r) => setImmediate(r));

test('granting trust sends trusted = true when the same binary keeps running', async () => {
  const control = new FakeControl();
  control.running = BUNDLED;
  const asked: boolean[] = [];
  const sync = new SettingsSync(control, discovery(undefined, asked));
  vscode.state.settings = { 'alisio.host': 'alisio' };
  vscode.state.trusted = true;
  vscode.state.grant.fire();
  await flush();
  assert.deepEqual(asked, [true]);
  assert.deepEqual(control.restarts, []);
  assert.deepEqual(control.sent, [{ settings: { alisio: { trusted: true, host: 'alisio' } } }]);
  sync.dispose();
});

test('granting trust restarts when trust unlocks a configured binary', async () => {
  const control = new FakeControl();
  control.running = BUNDLED;
  const sync = new SettingsSync(control, discovery('/opt/alisio-ls', []));
  vscode.state.trusted = true;
  vscode.state.grant.fire();
  await flush();
  assert.deepEqual(control.restarts, ['workspace trusted']);
  assert.deepEqual(control.sent, []);
  sync.dispose();
});

test('granting trust starts the server when none could run untrusted', async () => {
  const control = new FakeControl();
  control.running = undefined;
  const sync = new SettingsSync(control, discovery('/usr/bin/alisio-ls', []));
  vscode.state.trusted = true;
  vscode.state.grant.fire();
  await flush();
  assert.deepEqual(control.restarts, ['workspace trusted']);
  sync.dispose();
});

test('an untrusted workspace starts with trusted = false', () => {
  vscode.state.trusted = false;
  assert.equal(SettingsSync.options().trusted, false);
});

test('changing alisio.server.path restarts the server', async () => {
  const control = new FakeControl();
  control.running = '/a/alisio-ls';
  const sync = new SettingsSync(control, discovery(undefined, []));
  vscode.state.configChange.fire(vscode.changed('alisio.server.path'));
  await flush();
  assert.deepEqual(control.restarts, ['settings changed']);
  assert.deepEqual(control.sent, []);
  sync.dispose();
});

test('changing another alisio setting sends the full options through didChangeConfiguration', async () => {
  const control = new FakeControl();
  control.running = '/a/alisio-ls';
  const sync = new SettingsSync(control, discovery(undefined, []));
  vscode.state.trusted = true;
  vscode.state.settings = { 'alisio.context.maxBytes': 4096, 'alisio.context.governor': 'on' };
  vscode.state.configChange.fire(vscode.changed('alisio.context.maxBytes'));
  await flush();
  assert.deepEqual(control.restarts, []);
  assert.deepEqual(control.sent, [{ settings: { alisio: { trusted: true, context: { maxBytes: 4096, governor: 'on' } } } }]);
  sync.dispose();
});

test('changes outside the alisio section are ignored', async () => {
  const control = new FakeControl();
  control.running = '/a/alisio-ls';
  const sync = new SettingsSync(control, discovery(undefined, []));
  vscode.state.configChange.fire(vscode.changed('editor.fontSize'));
  await flush();
  assert.deepEqual(control.restarts, []);
  assert.deepEqual(control.sent, []);
  sync.dispose();
});
