// The Audit Sessions view (Explorer): a tree of the workspace's recent sessions and their
// findings (views/audit.ts), filled from `alisio/auditSessions`. Refresh asks the server to
// audit again; while a background audit runs the view asks again a few times.
import * as path from 'path';
import * as vscode from 'vscode';
import type { AlisioClient } from '../client';
import * as ext from '../lsp_ext';
import { AuditNode, auditTree } from './audit';

export const AUDIT_VIEW = 'alisio.auditSessions';

export class AuditSessionsView implements vscode.TreeDataProvider<AuditNode> {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  private nodes: AuditNode[] = auditTree(undefined);
  private retries = 0;

  constructor(private readonly client: AlisioClient) {}

  /** Asks the server for the last audit (`refresh`: audit again first). */
  async load(refresh = false): Promise<void> {
    const r = await this.client.request(ext.auditSessions, refresh ? { refresh: true } : {});
    const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    this.nodes = auditTree(r, (p) => (root && p.startsWith(root + path.sep) ? path.relative(root, p) : p));
    this.changed.fire();
    if (r?.running && this.retries < 10) {
      this.retries += 1;
      setTimeout(() => void this.load().catch(() => undefined), 1000);
    } else {
      this.retries = 0;
    }
  }

  getTreeItem(n: AuditNode): vscode.TreeItem {
    const item = new vscode.TreeItem(
      n.label,
      n.children.length ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None,
    );
    item.description = n.description;
    item.tooltip = n.tooltip;
    item.iconPath = new vscode.ThemeIcon(n.icon);
    if (n.path) item.command = { title: 'Open', command: 'vscode.open', arguments: [vscode.Uri.file(n.path)] };
    return item;
  }

  getChildren(n?: AuditNode): AuditNode[] {
    return n ? n.children : this.nodes;
  }

  dispose(): void {
    this.changed.dispose();
  }
}
