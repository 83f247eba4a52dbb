// Alisio: Test Skill Triggers — `alisio/testSkillTriggers` for the active SKILL.md (else every
// skill with an eval file), the result in the Skill Triggers view.
import * as vscode from 'vscode';
import * as ext from '../lsp_ext';
import { renderTriggersHtml } from '../views/triggers';
import { webviewHtml } from '../views/webview';
import { Ctx } from './ctx';

let panel: vscode.WebviewPanel | undefined;

export async function testSkillTriggers(ctx: Ctx, uri?: unknown): Promise<void> {
  try {
    const doc = vscode.window.activeTextEditor?.document.uri;
    const target = typeof uri === 'string' ? uri : doc && doc.path.endsWith('/SKILL.md') ? doc.toString() : undefined;
    const results = ((await ctx.client.request(ext.testSkillTriggers, target ? { uri: target } : {})) ?? []) as ext.TriggerHostResult[];
    if (!panel) {
      panel = vscode.window.createWebviewPanel('alisio.skillTriggers', 'Skill Triggers', { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true }, { enableScripts: false });
      panel.onDidDispose(() => (panel = undefined));
    }
    panel.webview.html = webviewHtml(panel.webview, 'Skill Triggers', renderTriggersHtml(results), false);
    panel.reveal(undefined, true);
  } catch (e) {
    ctx.failed('Test Skill Triggers')(e);
  }
}
