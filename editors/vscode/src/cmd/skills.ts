// Alisio: Show Skill Catalog and Toggle Skill — `alisio/skillCatalog` in a quick pick,
// `alisio/setSkillEnabled` with the opposite of the entry's `enabled`.
import * as vscode from 'vscode';
import * as ext from '../lsp_ext';
import { SkillEntry, skillItem } from '../views/render';
import { Ctx } from './ctx';

async function catalog(ctx: Ctx, uri?: vscode.Uri): Promise<SkillEntry[]> {
  return ((await ctx.client.request(ext.skillCatalog, uri ? { uri: uri.toString() } : {})) ?? []) as SkillEntry[];
}

async function toggle(ctx: Ctx, entry: SkillEntry): Promise<void> {
  const updated = (await ctx.client.request(ext.setSkillEnabled, { id: entry.id, enabled: !entry.enabled })) as SkillEntry | undefined;
  void vscode.window.showInformationMessage(`Skill ${updated?.displayId ?? entry.id} ${updated?.enabled ? 'enabled' : 'disabled'}.`);
}

export async function skillCatalog(ctx: Ctx, id?: unknown): Promise<void> {
  try {
    const entries = await catalog(ctx, vscode.window.activeTextEditor?.document.uri);
    const toggleButton = { iconPath: new vscode.ThemeIcon('circle-slash'), tooltip: 'Enable / disable' };
    const pick = vscode.window.createQuickPick<vscode.QuickPickItem & { entry: SkillEntry }>();
    pick.title = 'Alisio: skill catalog';
    pick.placeholder = entries.length ? 'Open a skill (the button enables or disables it)' : 'No skills discovered';
    pick.matchOnDetail = true;
    pick.items = entries.map((e) => ({ ...skillItem(e), entry: e, buttons: e.shadowedBy ? [] : [toggleButton] }));
    if (typeof id === 'string') {
      pick.activeItems = pick.items.filter((i) => i.entry.id === id);
      pick.value = '';
    }
    pick.onDidTriggerItemButton(async (e) => {
      pick.hide();
      await toggle(ctx, e.item.entry).catch(ctx.failed('Toggle Skill'));
    });
    pick.onDidAccept(async () => {
      const item = pick.selectedItems[0];
      pick.hide();
      if (item?.entry.file) {
        const root = vscode.workspace.workspaceFolders?.[0]?.uri;
        const file = item.entry.file.startsWith('/') || !root ? vscode.Uri.file(item.entry.file) : vscode.Uri.joinPath(root, item.entry.file);
        await vscode.window.showTextDocument(file);
      }
    });
    pick.onDidHide(() => pick.dispose());
    pick.show();
  } catch (e) {
    ctx.failed('Show Skill Catalog')(e);
  }
}

export async function toggleSkill(ctx: Ctx, id?: unknown): Promise<void> {
  try {
    const entries = await catalog(ctx, vscode.window.activeTextEditor?.document.uri);
    let entry = typeof id === 'string' ? entries.find((e) => e.id === id) : undefined;
    if (!entry) {
      const pick = await vscode.window.showQuickPick(
        entries.filter((e) => !e.shadowedBy).map((e) => ({ ...skillItem(e), entry: e })),
        { title: 'Alisio: enable or disable a skill', placeHolder: 'Skill to toggle' },
      );
      entry = pick?.entry;
    }
    if (entry) await toggle(ctx, entry);
  } catch (e) {
    ctx.failed('Toggle Skill')(e);
  }
}
