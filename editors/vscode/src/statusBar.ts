// The status bar item: the server's state, the host whose loading rules are simulated and the
// validator profile (settings `alisio.host`, `alisio.profile`). Clicking it opens a quick pick:
// restart, show the output channel, explain the current file, workspace trust help.
import * as vscode from 'vscode';
import type { ServerStatus } from './client';

export const STATUS_MENU_COMMAND = 'alisio.statusMenu';

interface StatusSource {
  status: ServerStatus;
  onDidChangeStatus: vscode.Event<ServerStatus>;
}

const ICONS: Record<ServerStatus['state'], string> = {
  starting: '$(sync~spin)',
  running: '$(book)',
  stopped: '$(circle-slash)',
  error: '$(error)',
};

/** The item's text (pure, tested): `$(book) alisio · codex · spec`. */
export function statusText(s: ServerStatus, host: string, profile: string): string {
  return `${ICONS[s.state]} alisio · ${host} · ${profile}`;
}

/** The item's tooltip, one fact a line (pure, tested). */
export function statusTooltip(s: ServerStatus, host: string, profile: string): string {
  const lines = [`alisio-ls: ${s.state}`, `Host: ${host} · Profile: ${profile}`];
  if (s.path) lines.push(s.path);
  lines.push(
    s.trusted
      ? 'Workspace trusted: project skills and project configuration are loaded.'
      : 'Workspace not trusted: project skills and project configuration are not loaded.',
  );
  if (s.detail) lines.push(s.detail);
  return lines.join('\n');
}

export interface MenuItem {
  label: string;
  description?: string;
  command: string;
  args?: unknown[];
}

/** The quick pick's entries (pure, tested). */
export function menuItems(s: ServerStatus): MenuItem[] {
  return [
    { label: '$(debug-restart) Restart Server', description: s.state, command: 'alisio.restart' },
    { label: '$(output) Show Output', command: 'alisio.showOutput' },
    { label: '$(book) Explain Context for This File', command: 'alisio.explainFile' },
    {
      label: s.trusted ? '$(shield) Workspace trusted: manage trust…' : '$(workspace-untrusted) Workspace not trusted: what trust enables…',
      description: 'project skills and .alisio/config.json',
      command: 'workbench.trust.manage',
    },
  ];
}

export function registerStatusBar(context: vscode.ExtensionContext, client: StatusSource): void {
  const item = vscode.window.createStatusBarItem('alisio.status', vscode.StatusBarAlignment.Right, 100);
  item.name = 'Alisio';
  item.command = STATUS_MENU_COMMAND;
  const render = () => {
    const cfg = vscode.workspace.getConfiguration('alisio');
    const host = cfg.get<string>('host') || 'alisio';
    const profile = cfg.get<string>('profile') || 'alisio';
    item.text = statusText(client.status, host, profile);
    item.tooltip = statusTooltip(client.status, host, profile);
    item.backgroundColor = client.status.state === 'error' ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
  };
  render();
  item.show();
  context.subscriptions.push(
    item,
    client.onDidChangeStatus(render),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('alisio')) render();
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(render),
    vscode.commands.registerCommand(STATUS_MENU_COMMAND, async () => {
      const pick = await vscode.window.showQuickPick(menuItems(client.status), { title: 'Alisio' });
      if (pick) await vscode.commands.executeCommand(pick.command, ...(pick.args ?? []));
    }),
  );
}
