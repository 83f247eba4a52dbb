// The command table: every command id of package.json and the function that runs it. The
// extension registers them in one loop (extension.ts).
import { Commands } from '../commands';
import { answerFromDiff, reviewHunk } from './approve';
import { refreshAuditSessions, showAuditSessions } from './auditSessions';
import { addFileToChat, addSelectionToChat, attachOpenEditors, resumeSession, startSession } from './chat';
import { contextReport } from './contextReport';
import { Ctx } from './ctx';
import { explainFile } from './explainFile';
import { initAgentsMd } from './initAgentsMd';
import { skillCatalog, toggleSkill } from './skills';
import { testSkillTriggers } from './triggers';

export type Handler = (ctx: Ctx, ...args: any[]) => unknown;

export const COMMANDS: Record<string, Handler> = {
  [Commands.restart]: (ctx) => ctx.client.restart('command'),
  [Commands.showOutput]: (ctx) => ctx.output.show(),
  [Commands.explainFile]: explainFile,
  [Commands.skillCatalog]: skillCatalog,
  [Commands.toggleSkill]: toggleSkill,
  [Commands.testSkillTriggers]: testSkillTriggers,
  [Commands.startSession]: startSession,
  [Commands.resumeSession]: resumeSession,
  [Commands.addFileToChat]: addFileToChat,
  [Commands.addSelectionToChat]: addSelectionToChat,
  [Commands.approveOnce]: answerFromDiff('allow-once'),
  [Commands.approveSession]: answerFromDiff('allow-session'),
  [Commands.deny]: answerFromDiff('deny'),
  [Commands.rejectHunk]: reviewHunk('before'),
  [Commands.acceptHunk]: reviewHunk('after'),
  [Commands.attachOpenEditors]: attachOpenEditors,
  [Commands.contextReport]: contextReport,
  [Commands.initAgentsMd]: initAgentsMd,
  [Commands.auditSessions]: showAuditSessions,
  [Commands.refreshAuditSessions]: refreshAuditSessions,
};
