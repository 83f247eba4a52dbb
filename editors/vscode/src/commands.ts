// Command ids. The server's code lenses carry the commands of spec/interfaces.md §3
// (`alisio.explainContext [uri]`, `alisio.showSkill [id]`, `alisio.toggleSkill [id]`,
// `alisio.showContextReport [sessionId]`). vscode-languageclient registers every command the
// server lists in `executeCommandProvider` as a proxy that sends `workspace/executeCommand` and
// drops the result, so the extension's own commands use other ids and the code lenses are
// rewritten to them (middleware in client.ts): clicking a lens then shows its view.

export const Commands = {
  explainFile: 'alisio.explainFile',
  skillCatalog: 'alisio.skillCatalog',
  toggleSkill: 'alisio.toggleSkillEnabled',
  testSkillTriggers: 'alisio.testSkillTriggers',
  startSession: 'alisio.startSession',
  resumeSession: 'alisio.resumeSession',
  addFileToChat: 'alisio.addFileToChat',
  addSelectionToChat: 'alisio.addSelectionToChat',
  contextReport: 'alisio.openContextReport',
  initAgentsMd: 'alisio.initAgentsMd',
  restart: 'alisio.restart',
  showOutput: 'alisio.showOutput',
  approveOnce: 'alisio.approveOnce',
  approveSession: 'alisio.approveSession',
  deny: 'alisio.deny',
  rejectHunk: 'alisio.rejectHunk',
  acceptHunk: 'alisio.acceptHunk',
  attachOpenEditors: 'alisio.attachOpenEditors',
  auditSessions: 'alisio.auditSessions.show',
  refreshAuditSessions: 'alisio.auditSessions.refresh',
} as const;

/** Server command id → the extension command that shows its result. */
export const LENS_COMMANDS: Record<string, string> = {
  'alisio.explainContext': Commands.explainFile,
  'alisio.showSkill': Commands.skillCatalog,
  'alisio.toggleSkill': Commands.toggleSkill,
  'alisio.showContextReport': Commands.contextReport,
  'alisio.showAuditSessions': Commands.auditSessions,
};

export interface LensCommand {
  title: string;
  command: string;
  arguments?: unknown[];
  tooltip?: string;
}

/** The lens command rewritten to the extension's command (arguments kept); others unchanged. */
export function rewriteLensCommand<T extends LensCommand | undefined>(cmd: T): T {
  if (!cmd || !(cmd.command in LENS_COMMANDS)) {
    return cmd;
  }
  return { ...cmd, command: LENS_COMMANDS[cmd.command] } as T;
}
