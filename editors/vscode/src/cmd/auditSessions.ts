// Alisio: Show Audit Sessions (also the target of the audit code lenses) and Audit Recent
// Sessions Again: the Audit Sessions view (views/auditView.ts) over `alisio/auditSessions`.
import * as vscode from 'vscode';
import { AUDIT_VIEW } from '../views/auditView';
import { Ctx } from './ctx';

export async function showAuditSessions(ctx: Ctx): Promise<void> {
  await vscode.commands.executeCommand(`${AUDIT_VIEW}.focus`);
  await ctx.auditView?.load().catch(ctx.failed('Show Audit Sessions'));
}

export async function refreshAuditSessions(ctx: Ctx): Promise<void> {
  await ctx.auditView?.load(true).catch(ctx.failed('Audit Recent Sessions Again'));
}
