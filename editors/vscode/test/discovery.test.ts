import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bundledPath, discoverServer, DiscoveryInput, expandHome } from '../src/discovery';

const EXT = '/ext/alisio';
const BUNDLED = '/ext/alisio/server/linux-x64/alisio-ls';

function input(files: string[], over: Partial<DiscoveryInput> = {}): DiscoveryInput {
  const set = new Set(files);
  return {
    env: { PATH: '/usr/local/bin:/usr/bin', HOME: '/home/u' },
    settingPath: null,
    trusted: true,
    extensionPath: EXT,
    platform: 'linux',
    arch: 'x64',
    isFile: (p) => set.has(p),
    ...over,
  };
}

test('bundled binary lives under server/<platform>-<arch>/', () => {
  assert.equal(bundledPath(EXT, 'linux', 'x64'), BUNDLED);
  assert.equal(bundledPath('/e', 'win32', 'x64'), '/e/server/win32-x64/alisio-ls.exe');
});

test('the debug env var wins over the setting, the bundled binary and PATH', () => {
  const files = ['/dev/alisio-ls', '/opt/alisio-ls', BUNDLED, '/usr/bin/alisio-ls'];
  const d = discoverServer(input(files, { env: { ALISIO_LS_PATH: '/dev/alisio-ls', PATH: '/usr/bin' }, settingPath: '/opt/alisio-ls' }));
  assert.deepEqual(d, { ok: true, path: '/dev/alisio-ls', source: 'env' });
});

test('the setting wins over the bundled binary and PATH, with ~ expanded', () => {
  const d = discoverServer(input(['/home/u/bin/alisio-ls', BUNDLED, '/usr/bin/alisio-ls'], { settingPath: '~/bin/alisio-ls' }));
  assert.deepEqual(d, { ok: true, path: '/home/u/bin/alisio-ls', source: 'setting' });
});

test('a relative setting is resolved against the first workspace folder', () => {
  const d = discoverServer(input(['/ws/tools/alisio-ls'], { settingPath: 'tools/alisio-ls', workspaceFolder: '/ws' }));
  assert.deepEqual(d, { ok: true, path: '/ws/tools/alisio-ls', source: 'setting' });
});

test('the bundled binary wins over PATH', () => {
  assert.deepEqual(discoverServer(input([BUNDLED, '/usr/bin/alisio-ls'])), { ok: true, path: BUNDLED, source: 'bundled' });
});

test('PATH is searched in order when nothing else is there', () => {
  const d = discoverServer(input(['/usr/bin/alisio-ls', '/usr/local/bin/alisio-ls']));
  assert.deepEqual(d, { ok: true, path: '/usr/local/bin/alisio-ls', source: 'path' });
});

test('a setting that points nowhere is an error, not a silent fallback', () => {
  const d = discoverServer(input([BUNDLED], { settingPath: '/nope/alisio-ls' }));
  assert.equal(d.ok, false);
  assert.equal(!d.ok && d.error, 'alisio.server.path is set to /nope/alisio-ls, which is not a file.');
});

test('an env var that points nowhere is an error', () => {
  const d = discoverServer(input([BUNDLED], { env: { ALISIO_LS_PATH: '/x/alisio-ls' } }));
  assert.equal(!d.ok && d.error, 'ALISIO_LS_PATH is set to /x/alisio-ls, which is not a file.');
});

test('nothing found lists every place tried', () => {
  const d = discoverServer(input([]));
  assert.equal(d.ok, false);
  assert.deepEqual(!d.ok && d.tried, [BUNDLED, '/usr/local/bin/alisio-ls', '/usr/bin/alisio-ls']);
});

test('an untrusted workspace uses only the bundled binary, ignoring env, setting and PATH', () => {
  const files = ['/dev/alisio-ls', '/opt/alisio-ls', BUNDLED, '/usr/bin/alisio-ls'];
  const d = discoverServer(input(files, { trusted: false, env: { ALISIO_LS_PATH: '/dev/alisio-ls', PATH: '/usr/bin' }, settingPath: '/opt/alisio-ls' }));
  assert.deepEqual(d, { ok: true, path: BUNDLED, source: 'bundled' });
});

test('an untrusted workspace without a bundled binary does not start a configured one', () => {
  const d = discoverServer(input(['/opt/alisio-ls', '/usr/bin/alisio-ls'], { trusted: false, settingPath: '/opt/alisio-ls' }));
  assert.equal(d.ok, false);
  assert.deepEqual(!d.ok && d.tried, [BUNDLED]);
  assert.match(!d.ok ? d.error : '', /untrusted workspace only the server bundled/);
});

test('expandHome only touches a leading ~', () => {
  assert.equal(expandHome('~/x', '/h'), '/h/x');
  assert.equal(expandHome('~', '/h'), '/h');
  assert.equal(expandHome('/a/~/x', '/h'), '/a/~/x');
  assert.equal(expandHome('~user/x', '/h'), '~user/x');
});
