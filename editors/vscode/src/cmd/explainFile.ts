// Alisio: Explain Context for This File — `alisio/contextExplain` shown as a read-only
// Markdown document beside the editor (rendered preview when the Markdown extension is there).
import * as vscode from 'vscode';
import * as ext from '../lsp_ext';
import { ExplainResult, renderExplainMarkdown } from '../views/render';
import { Ctx, EXPLAIN_SCHEME } from './ctx';

export async function explainFile(ctx: Ctx, arg?: unknown): Promise<void> {
  const uri = ctx.activeUri(arg);
  if (!uri) return void vscode.window.showInformationMessage('Alisio: open a file to explain its context.');
  try {
    const r = (await ctx.client.request(ext.contextExplain, { uri: uri.toString() })) as ExplainResult;
    const doc = vscode.Uri.from({ scheme: EXPLAIN_SCHEME, path: `/${r.path || uri.path}.md` });
    ctx.explainDocs.set(doc.toString(), renderExplainMarkdown(r));
    ctx.explainChanged.fire(doc);
    const text = await vscode.workspace.openTextDocument(doc);
    await vscode.languages.setTextDocumentLanguage(text, 'markdown');
    // The rendered table reads best; the plain document is the fallback without the
    // built-in Markdown extension.
    const shown = await vscode.commands.executeCommand('markdown.showPreviewToSide', doc).then(() => true, () => false);
    if (!shown) {
      await vscode.window.showTextDocument(text, { viewColumn: vscode.ViewColumn.Beside, preview: true, preserveFocus: true });
    }
  } catch (e) {
    ctx.failed('Explain Context')(e);
  }
}
