// The custom protocol of alisio-ls, declared once for the extension: the mirror of
// server/src/lsp/ext.rs (a Rust test fails when the two lists of methods, or the Lua plugin's
// editors/neovim/lua/alisio/ext.lua, differ). Every `alisio/*` request and notification the
// extension sends or handles goes through one of these types.
import { NotificationType, RequestType } from 'vscode-languageclient/node';

// ---- shapes -------------------------------------------------------------------------------

export interface SessionEvent {
  schemaVersion?: number;
  runId?: string;
  sessionId?: string;
  seq?: number;
  type: string;
  timestamp?: string;
  data?: Record<string, any>;
  eventId?: string;
  parentSessionId?: string;
}

/** What a write_file / edit_file call would write (before null: a new file). */
export interface FilePreview {
  path: string;
  before: string | null;
  after: string | null;
  /** Over 1 MiB (or not text): no text on either side. */
  truncated?: boolean;
  newFile?: boolean;
}

/** What a process tool would run. */
export interface ProcessPreview {
  command: string;
  args?: string[];
  cwd: string;
}

export type ApprovalPreview = FilePreview | ProcessPreview;

export interface ApproveParams {
  sessionId: string;
  callId: string;
  tool: string;
  effect: string;
  summary: string;
  paths?: string[];
  preview?: ApprovalPreview;
  /** The process sandbox of a `process` call (spec/sessions.md §10.4), else null. */
  sandbox?: { mode: string; network: boolean } | null;
}

export type Decision = 'allow-once' | 'allow-session' | 'deny';

export interface ApproveResult {
  decision: Decision;
}

export interface Attachment {
  uri: string;
  /** Zero-based lines, end exclusive (LSP range; characters are ignored). */
  range?: { start: { line: number; character: number }; end: { line: number; character: number } };
}

export interface RunSessionParams {
  prompt: string;
  sessionId?: string;
  governor?: 'off' | 'shadow' | 'on';
  provider?: Record<string, unknown>;
  model?: string;
  readOnly?: boolean;
  /** spec/sessions.md §12.1 */
  mode?: 'default' | 'coordinator';
  goal?: string;
  maxTurns?: number;
  workDoneToken?: string | number;
  attachments?: Attachment[];
}

export interface RunSessionResult {
  sessionId: string;
  status: 'completed' | 'failed' | 'cancelled';
  text: string;
  report?: any;
}

export interface SessionSummary {
  sessionId: string;
  title?: string | null;
  createdAt?: string;
  updatedAt?: string;
  messages?: number;
}

/** The transcript export, as `alisio-ls sessions show <id> --json`. */
export interface Transcript {
  schemaVersion: number;
  session: { id: string; title?: string | null; createdAt?: string; updatedAt?: string; [k: string]: unknown };
  messages: { seq: number; role: string; kind: string; compacted: boolean; message: any }[];
}

// ---- methods (same order as ext.rs) -------------------------------------------------------

export const contextExplain = new RequestType<{ uri: string; host?: string }, any, void>('alisio/contextExplain');
export const skillCatalog = new RequestType<{ uri?: string }, any[], void>('alisio/skillCatalog');
export const setSkillEnabled = new RequestType<{ id: string; enabled: boolean }, any, void>('alisio/setSkillEnabled');
export const runSession = new RequestType<RunSessionParams, RunSessionResult, void>('alisio/runSession');
export const contextReport = new RequestType<{ sessionId: string }, any, void>('alisio/contextReport');
export const listSessions = new RequestType<Record<string, never>, SessionSummary[], void>('alisio/listSessions');
export const sessionTranscript = new RequestType<{ sessionId: string }, Transcript, void>('alisio/sessionTranscript');
export const initAgentsMd = new RequestType<{ uri: string; write?: boolean; sha256?: string }, InitProposal, void>('alisio/initAgentsMd');

/** The result of `alisio/initAgentsMd` (interfaces.md §3.1). */
export interface InitProposal {
  uri: string;
  exists: boolean;
  current: string | null;
  proposed: string;
  sha256: string;
  changed: boolean;
  written: boolean;
}
export const approve = new RequestType<ApproveParams, ApproveResult, void>('alisio/approve');
export const sessionEvent = new NotificationType<{ sessionId: string; event: SessionEvent }>('alisio/sessionEvent');
