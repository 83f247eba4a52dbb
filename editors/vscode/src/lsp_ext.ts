// The custom protocol of alisio-ls, declared once for the extension: the mirror of
// server/src/lsp/ext.rs. Rust tests (server/src/lsp/ext_tests.rs) fail when the two lists of
// methods, or the Lua plugin's editors/neovim/lua/alisio/ext.lua, differ, and when a value of a
// Rust params or result type does not fit the interface declared here (a key the interface does
// not declare, a wrong type, a required key missing). Every `alisio/*` request and notification
// the extension sends or handles goes through one of these types; none is `any`.
import { NotificationType, RequestType } from 'vscode-languageclient/node';

// ---- shapes -------------------------------------------------------------------------------

/** The event envelope of spec/sessions.md §8; `data` differs by `type`. */
export interface SessionEvent {
  schemaVersion?: number;
  runId?: string;
  sessionId?: string;
  seq?: number;
  type: string;
  timestamp?: string;
  data?: Record<string, unknown>;
  eventId?: string;
  parentSessionId?: string;
}

export interface SessionEventParams {
  sessionId: string;
  event: SessionEvent;
}

/**
 * The `data` of each event `type` (spec/sessions.md §8.2), keyed by type: the mirror of
 * `Event` in crates/alisio-session/src/events/kinds.rs. A Rust test serializes every event
 * type and checks it against these interfaces (server/src/lsp/ext_shapes_tests.rs).
 */
export interface SessionEventData {
  run_started: RunStartedData;
  sandbox_unavailable: SandboxUnavailableData;
  session_reconciled: SessionReconciledData;
  text_delta: TextDeltaData;
  tool_started: ToolStartedData;
  approval_requested: ApprovalRequestedData;
  approval_resolved: ApprovalResolvedData;
  tool_completed: ToolCompletedData;
  turn_completed: TurnCompletedData;
  request_retry: RequestRetryData;
  response_truncated: ResponseTruncatedData;
  truncation_recovery: TruncationRecoveryData;
  compaction_started: CompactionStartedData;
  compaction_completed: CompactionCompletedData;
  compaction_skipped: CompactionSkippedData;
  compaction_failed: CompactionFailedData;
  context_reduced: ContextReducedData;
  context_governed: ContextGovernedData;
  session_relayed: SessionRelayedData;
  run_completed: RunCompletedData;
  run_failed: RunFailedData;
  run_cancelled: RunCancelledData;
}

/** The process sandbox of spec/sessions.md §10.4. */
export interface SandboxState {
  mode: string;
  network: boolean;
}

export interface RunStartedData {
  model: string;
  provider: string;
  governor: string;
  resumed: boolean;
  messages: number;
  cwd: string;
  sandbox: SandboxState | null;
  /** The provider's prompt-cache lifetime the run assumes (0: never). */
  promptCacheTtlSeconds: number;
  relayOf?: string;
}

export interface SandboxUnavailableData {
  requested: string;
  mode: string;
  reason: string;
}

export interface ReconciledCall {
  id: string;
  name: string;
  outcome: string;
}

export interface SessionReconciledData {
  interruptedRuns: number;
  calls: ReconciledCall[];
}

export interface TextDeltaData {
  turn: number;
  text: string;
}

export interface ToolStartedData {
  id: string;
  name: string;
  arguments: string;
  effect: string | null;
}

export interface ApprovalRequestedData {
  callId: string;
  tool: string;
  effect: string;
  summary: string;
  paths: string[];
  sandbox: SandboxState | null;
}

export interface ApprovalResolvedData {
  callId: string;
  decision: string;
  source: string;
}

export interface ToolCompletedData {
  id: string;
  name: string;
  isError: boolean;
  outcome: string;
  durationMs: number;
  preview: string;
  childSessionId?: string;
}

export interface TurnUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  estimated: boolean;
}

export interface TurnCompletedData {
  turn: number;
  calls: number;
  stopReason: string;
  model: string;
  usage: TurnUsage;
  tokens: number;
  durationMs: number;
  ttftMs: number;
}

export interface RequestRetryData {
  attempt: number;
  of: number;
  reason: string;
  status: number | null;
  delayMs: number;
  discardedText: boolean;
  /** The discarded answer's usage (an invalid turn's); absent when no answer came. */
  usage?: TurnUsage;
}

export interface ResponseTruncatedData {
  turn: number;
  maxOutputTokens: number;
}

export interface TruncationRecoveryData {
  attempt: number;
  of: number;
  maxOutputTokens: number;
  /** The cut-off answer's usage (the provider billed it). */
  usage: TurnUsage;
}

export interface CompactionStartedData {
  reason: string;
  before: number;
  messages: number;
}

export interface CompactionCompletedData {
  reason: string;
  before: number;
  after: number;
  replaced: number;
  structured: boolean;
  summarizedTokens: number;
  checkpointTokens: number;
  partial: boolean;
  /** The summary request's usage. */
  usage: TurnUsage;
}

export interface CompactionSkippedData {
  reason: string;
  before: number;
  detail: string;
}

export interface CompactionFailedData {
  reason: string;
  error: string;
  /** The summary request's usage when an answer came (empty or cut off). */
  usage?: TurnUsage;
}

export interface ContextReducedData {
  messages: number;
  reason: string;
  tokensSaved: number;
}

/** spec/governor.md §7.1. */
export interface ContextGovernedData {
  mode: string;
  policyVersion: number;
  request: number;
  recovery: boolean;
  cacheCold: boolean;
  failed: boolean;
  messages: number;
  eligibleMessages: number;
  segments: number;
  elided: number;
  byReason: Record<string, number>;
  tokensBefore: number;
  tokensAfter: number;
  tokensSaved: number;
  newlyElided: string[];
  newlyElidedMore: number;
  invariants: InvariantCounts;
  usage: UsageLedger | null;
  replay: { off: Figures; governed: Figures };
}

export interface SessionRelayedData {
  to: string;
  structured: boolean;
  atFraction: number;
  /** The handoff request's usage. */
  usage: TurnUsage;
}

export interface RunUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

export interface RunCompletedData {
  text: string;
  turns: number;
  tokens: number;
  usage: RunUsage;
  truncated: boolean;
}

export interface RunFailedData {
  error: string | null;
  code: string | null;
  turns: number;
  tokens: number;
  /** The usage of the answer that ended the run (a third cut-off answer, a second invalid turn). */
  usage?: TurnUsage;
}

export interface RunCancelledData {
  reason: string;
  error: string;
}

export type Host = 'alisio' | 'codex' | 'claude-code' | 'copilot' | 'gemini' | 'cursor';

export interface ContextExplainParams {
  uri: string;
  host?: Host;
}

/** One `@import` of a file (gemini, claude-code; `approval` for claude-code only). */
export interface ExplainImport {
  path: string;
  depth: number;
  bytes: number;
  approval?: boolean;
  /** Claude Code: the sha256 of the imported text as delivered. */
  sha256?: string;
}

/** One file of the explain object (spec/interfaces.md §1.1). */
export interface ExplainFile {
  path: string;
  scope: string;
  kind: string;
  bytes: number;
  keptBytes: number;
  truncation: string;
  fileBytes?: number;
  fileCut?: boolean;
  empty?: boolean;
  error?: string;
  load?: string;
  delivery?: string;
  reason?: string;
  imports?: ExplainImport[];
  strippedBytes?: number;
  /** Claude Code: the sha256 of the file's text as delivered, unless dropped. */
  sha256?: string;
}

export interface PathReason {
  path: string;
  reason: string;
}

/** The explain object (spec/interfaces.md §1.1): `context explain --json`, `alisio/contextExplain`. */
export interface ExplainResult {
  path: string;
  workspace?: string;
  host: Host;
  /** The client version the host's rules were measured on (spec/hosts.md), or null. */
  hostVersion: string | null;
  /** `null` for claude-code (no shared budget). */
  maxBytes: number | null;
  files: ExplainFile[];
  omittedBytes?: number;
  notice?: string | null;
  outsideWorkspace?: boolean;
  skipped?: PathReason[];
  notLoaded?: PathReason[];
  evidence?: string;
  /** What the host loads at startup besides instruction files and skills (subagents, slash
   * commands, MCP servers; spec/instructions.md §10); null for alisio, copilot and cursor. */
  startup?: StartupCost | null;
}

/** The `startup` object of the explain result (spec/interfaces.md §1.1). */
export interface StartupCost {
  host: Host;
  /** agents, commands, mcp: always all three, in that order. */
  families: StartupFamily[];
  bytes: number;
  /** ceil(bytes / 4). */
  tokens: number;
}

export interface StartupFamily {
  family: 'agents' | 'commands' | 'mcp';
  /** Where the host sends the entries: `agent listing`, `skill listing`, `MCP servers`. */
  channel: string;
  entries: StartupEntry[];
  notLoaded: StartupNotLoaded[];
  bytes: number;
  tokens: number;
}

export interface StartupEntry {
  name: string;
  file: string;
  scope: 'user' | 'project';
  description: string;
  /** An agent's tools summary, an MCP server's transport. */
  detail: string;
  /** The line the host sends; null for an MCP server (its tools come from the server). */
  text: string | null;
  loaded: boolean;
  /** The winning file (for a command hidden by a skill, its SKILL.md). */
  shadowedBy: string | null;
  /** Why the host loads the entry but sends the model nothing for it; null otherwise. */
  hidden: string | null;
  /** What is sent (0 when not loaded). */
  bytes: number;
}

export interface StartupNotLoaded {
  file: string;
  reason: string;
}

export interface SkillCatalogParams {
  uri?: string;
}

export interface TestSkillTriggersParams {
  uri?: string;
}

/** One host's offline trigger-lab result (spec/skills.md §10). */
export interface TriggerHostResult {
  host: string;
  skills: TriggerScore[];
  misrouted: TriggerMiss[];
}

export interface TriggerScore {
  name: string;
  uri: string;
  listed: boolean;
  truePositives: number;
  falsePositives: number;
  falseNegatives: number;
  trueNegatives: number;
  precision: number | null;
  recall: number | null;
}

export interface TriggerMiss {
  skill: string;
  uri: string;
  prompt: string;
  expected: string;
  routed: string | null;
  score: number;
}

/** A catalog entry (spec/interfaces.md §1.2). */
export interface SkillEntry {
  id: string;
  name: string;
  displayId?: string;
  description?: string;
  scope: string;
  source?: string;
  file?: string;
  root?: string;
  enabled: boolean;
  effective: boolean;
  shadowedBy?: string | null;
  effectiveId?: string;
  locked?: boolean;
  modelInvocable?: boolean;
  approximateTokens?: number;
  catalogTokens?: number;
  bodyTokens?: number;
  /** The plugin that registered the entry's root. */
  owner?: { id: string; name: string };
}

export interface SetSkillEnabledParams {
  id: string;
  enabled: boolean;
}

// The ContextReport (spec/governor.md §6.5): `{mode: 'off', measured: false, sessionId}` or a
// measured report with every other field.

export interface Segment {
  index: number;
  kind: string;
  origin: string;
  message?: number;
  tool?: string;
  callId?: string;
  /** The tool a result is shown as (foreign transcripts). */
  as?: string;
  tokens: number;
  criticality: 'pinned' | 'high' | 'normal' | 'low';
  reason: string;
  elided?: { reason: string; by?: string; tokensSaved: number };
  used?: string;
}

export interface ReportTotals {
  segments: number;
  tokensBefore: number;
  tokensAfter: number;
  tokensSaved: number;
  elided: number;
  byReason: Record<string, number>;
  byCriticality: Record<string, number>;
}

export interface ReportSettings {
  minAgeTurns: number;
  epochMessages: number;
  maxChars: number;
  spill?: { thresholdChars: number; headChars: number; tailChars: number };
  trim?: { minChars: number; keepRecent: number };
}

export interface InvariantCounts {
  sent: boolean;
  total: number;
  byKind: Record<string, number>;
  omitted: number;
}

export interface ToolUsage {
  seen: number;
  used: number;
  reread: number;
  unused?: number;
}

export interface UsageLedger {
  perTool?: Record<string, ToolUsage>;
  notAttributable?: number;
}

export interface Figures {
  inputTokens: number;
  cachedTokens: number;
  cost: number;
  cacheBreaks: number;
}

export interface Baseline extends Figures {
  name: string;
}

export interface Columns {
  inputTokens: number[];
  cachedTokens: number[];
}

/** The recorded bill (spec/governor.md §11.11): what the provider reported for the session's
 * requests, priced at the replay's prices, against the replay's saving. */
export interface Recorded {
  requests: number;
  inputTokens: number;
  cachedTokens: number;
  cost: number;
  offCost: number;
  governedCost: number;
  recoveryCost: number;
  saved: number;
  /** The replay's cost of the stream each request really sent. */
  sentCost: number;
  /** Of `requests`, a live session's compaction summaries (no replay of their own), and their cost. */
  otherRequests: number;
  otherCost: number;
  /** The part of `saved` from live requests sent in `shadow` (not sent, no recovery charged). */
  shadowSaved: number;
  /** The bill `off` would have run up. */
  offBill: number;
  savedShare: number | null;
}

export interface Replay {
  requests: number;
  off: Figures;
  governed: Figures;
  baselines: Baseline[];
  perRequest?: { off: Columns; governed: Columns; baselines: Columns[] };
  /** Absent or `null` when no request has a usage the provider reported. */
  recorded?: Recorded | null;
}

export interface ContextReport {
  mode: 'off' | 'shadow' | 'on';
  measured: boolean;
  sessionId: string;
  policyVersion?: number;
  request?: number | null;
  settings?: ReportSettings;
  messages?: number;
  eligibleMessages?: number;
  compacted?: boolean;
  segments?: Segment[];
  segmentsOmitted?: number;
  totals?: ReportTotals;
  invariants?: InvariantCounts;
  /** The per-tool usage ledger (spec/governor.md §8), `null` when this process has none. */
  usage?: UsageLedger | null;
  /** `governor analyze` only: the transcript read. */
  source?: unknown;
  /** The cache-aware replay of the session's requests so far (spec/governor.md §11.8). */
  replay?: Replay | null;
  /** A coordinator session's brief measure (spec/sessions.md §12.2). */
  delegation?: unknown;
  /** The session's links in a relay chain (spec/sessions.md §12.5). */
  relay?: { of: string | null; to: string | null };
}

export interface SessionIdParams {
  sessionId: string;
}

/** `{}`: listing takes no arguments. */
export type ListSessionsParams = Record<string, never>;

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

/** A file the session changed, against its baseline (spec/sessions.md §13.4). */
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

/** One checkpoint of a session (spec/sessions.md §13.3). */
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
  report: ContextReport;
}

export interface SessionSummary {
  sessionId: string;
  title?: string | null;
  createdAt?: string;
  updatedAt?: string;
  messages?: number;
  /** The relay chain (spec/sessions.md §12.5): the session this one continues. */
  relayOf?: string;
  /** The session this one relayed to. */
  relayedTo?: string;
}

/** A part of a stored message: text, or a call the assistant made. */
export interface StoredPart {
  type: string;
  text?: string;
  id?: string;
  name?: string;
  arguments?: string;
  [k: string]: unknown;
}

/** A stored session message, as far as the extension reads it (the rest is kept as is). */
export interface StoredMessage {
  role?: string;
  content?: StoredPart[];
  callId?: string;
  isError?: boolean;
  outcome?: string;
  [k: string]: unknown;
}

export interface TranscriptSession {
  id: string;
  title?: string | null;
  workspace?: string;
  cwd?: string;
  createdAt?: string;
  updatedAt?: string;
  parentId?: string | null;
  provider?: unknown;
  options?: unknown;
}

export interface TranscriptMessage {
  seq: number;
  pos?: number;
  /** `user`, `assistant` or `tool`. */
  role: string;
  /** `message`, `checkpoint` or `reduced`. */
  kind: string;
  compacted: boolean;
  replacedBy?: number | null;
  runId?: string | null;
  createdAt?: string;
  /** `null` when the stored text does not parse. */
  message: StoredMessage | null;
}

/** The transcript export, as `alisio-ls sessions show <id> --json`. */
export interface Transcript {
  schemaVersion: number;
  session: TranscriptSession;
  messages: TranscriptMessage[];
  events?: unknown[];
}

/** `alisio/initAgentsMd {uri, write?, sha256?}`. */
export interface InitAgentsMdParams {
  uri: string;
  write?: boolean;
  sha256?: string;
}

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

/** `alisio/auditSessions {refresh?}`: `refresh: true` audits again first (interfaces.md §4.6). */
export interface AuditSessionsParams {
  refresh?: boolean;
}

/** One finding of an audited session. */
export interface AuditFinding {
  kind:
    | 'older-copy'
    | 'not-predicted'
    | 'not-received'
    | 'import-not-expanded'
    | 'reference-unread'
    | 'description-shortened'
    | 'description-dropped'
    | 'skipped-lines';
  /** The file concerned (absolute). */
  path?: string;
  message: string;
}

/** One recent session of the workspace, newest first per client. */
export interface AuditedSession {
  file: string;
  /** `Claude Code`, `Codex` or `alisio-ls`. */
  client: string;
  format: string;
  session: string;
  cwd: string | null;
  clientVersion: string | null;
  prompts: number;
  deliveries: number;
  requests: number;
  findings: AuditFinding[];
}

export interface AuditSessionsResult {
  /** `audit.enabled`; false: nothing was read. */
  enabled: boolean;
  /** A background audit is running (this is the previous one). */
  running: boolean;
  sessions: AuditedSession[];
}

// ---- methods (same order as ext.rs) -------------------------------------------------------

export const contextExplain = new RequestType<ContextExplainParams, ExplainResult, void>('alisio/contextExplain');
export const skillCatalog = new RequestType<SkillCatalogParams, SkillEntry[], void>('alisio/skillCatalog');
export const setSkillEnabled = new RequestType<SetSkillEnabledParams, SkillEntry, void>('alisio/setSkillEnabled');
export const testSkillTriggers = new RequestType<TestSkillTriggersParams, TriggerHostResult[], void>('alisio/testSkillTriggers');
export const runSession = new RequestType<RunSessionParams, RunSessionResult, void>('alisio/runSession');
export const contextReport = new RequestType<SessionIdParams, ContextReport, void>('alisio/contextReport');
export const listSessions = new RequestType<ListSessionsParams, SessionSummary[], void>('alisio/listSessions');
export const sessionTranscript = new RequestType<SessionIdParams, Transcript, void>('alisio/sessionTranscript');
export const initAgentsMd = new RequestType<InitAgentsMdParams, InitProposal, void>('alisio/initAgentsMd');
export const checkpoints = new RequestType<{ sessionId: string }, CheckpointInfo[], void>('alisio/checkpoints');
export const rewind = new RequestType<RewindParams, RewindResult, void>('alisio/rewind');
export const sessionChanges = new RequestType<{ sessionId: string }, Change[], void>('alisio/sessionChanges');
export const keepChanges = new RequestType<{ sessionId: string; paths?: string[] }, { kept: string[] }, void>('alisio/keepChanges');
export const undoChange = new RequestType<{ sessionId: string; path: string; hunks?: boolean[] }, { change: Change | null }, void>('alisio/undoChange');
export const auditSessions = new RequestType<AuditSessionsParams, AuditSessionsResult, void>('alisio/auditSessions');
export const approve = new RequestType<ApproveParams, ApproveResult, void>('alisio/approve');
export const sessionEvent = new NotificationType<SessionEventParams>('alisio/sessionEvent');
