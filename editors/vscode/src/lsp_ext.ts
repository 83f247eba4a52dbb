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
  /** The runs of changed lines (0-based), in order: a reply may accept each or not. */
  hunks?: Hunk[];
}

/** `oldLines` lines of `before` from `oldStart` replaced by `newLines` lines of `after` from `newStart`. */
export interface Hunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
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

/** With an allow decision for a write, at most one of `content` (the text to write, edited by
 * the user) and `hunks` (one flag per preview hunk, true: take it) (spec/sessions.md §4.4). */
export interface ApproveResult {
  decision: Decision;
  content?: string;
  hunks?: boolean[];
}

/** A file the session changed, against its baseline (spec/sessions.md §12.4). */
export interface Change {
  path: string;
  status: 'added' | 'modified' | 'deleted';
  before: string | null;
  after: string | null;
  truncated: boolean;
  hunks: Hunk[];
  sha256: string | null;
  /** Changed again by the user after the session: Undo is refused. */
  userChanged: boolean;
}

/** One checkpoint of a session (spec/sessions.md §12.3). */
export interface CheckpointInfo {
  checkpoint: number;
  createdAt: string;
  promptSeq: number | null;
  prompt: string | null;
  /** False: the run could not change files. */
  files: boolean;
  /** Whether its prompt is in the active transcript. */
  active: boolean;
}

export interface RewindParams {
  sessionId: string;
  checkpoint: number;
  /** Files the user changed after the checkpoint: ask (default), keep, overwrite. */
  resolve?: 'ask' | 'keep' | 'overwrite';
}

export interface RewindResult {
  sessionId: string;
  checkpoint: number;
  /** False: conflicts were found and nothing changed (resolve "ask"). */
  rewound: boolean;
  prompt: string | null;
  files: { path: string; action: 'restore' | 'create' | 'delete'; conflict: boolean }[];
  conflicts: string[];
  kept: string[];
  unrestorable: string[];
  failed: string[];
  messages: { removed: number; restored: number };
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
export const checkpoints = new RequestType<{ sessionId: string }, CheckpointInfo[], void>('alisio/checkpoints');
export const rewind = new RequestType<RewindParams, RewindResult, void>('alisio/rewind');
export const sessionChanges = new RequestType<{ sessionId: string }, Change[], void>('alisio/sessionChanges');
export const keepChanges = new RequestType<{ sessionId: string; paths?: string[] }, { kept: string[] }, void>('alisio/keepChanges');
export const undoChange = new RequestType<{ sessionId: string; path: string; hunks?: boolean[] }, { change: Change | null }, void>('alisio/undoChange');
export const approve = new RequestType<ApproveParams, ApproveResult, void>('alisio/approve');
export const sessionEvent = new NotificationType<{ sessionId: string; event: SessionEvent }>('alisio/sessionEvent');
