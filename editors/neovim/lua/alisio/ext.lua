-- The custom protocol of alisio-ls, declared once for the Neovim plugin: the mirror of
-- server/src/lsp/ext.rs (a Rust test fails when this list, ext.rs's and
-- editors/vscode/src/lsp_ext.ts's differ). Every `alisio/*` method the plugin sends or handles
-- is named through this table; the shapes are documented in ext.rs.

local M = {}

-- client → server requests (same order as ext.rs)
M.context_explain = 'alisio/contextExplain' -- {uri, host?} → explain object with its startup cost ({host, families, bytes, tokens} or nil)
M.skill_catalog = 'alisio/skillCatalog' -- {uri?} → catalog entries
M.set_skill_enabled = 'alisio/setSkillEnabled' -- {id, enabled} → entry
M.test_skill_triggers = 'alisio/testSkillTriggers' -- {uri?} → [{host, skills, misrouted}]
M.run_session = 'alisio/runSession' -- {prompt, sessionId?, attachments?, workDoneToken?, …} → {sessionId, status, text, report}
M.context_report = 'alisio/contextReport' -- {sessionId} → ContextReport
M.list_sessions = 'alisio/listSessions' -- {} → [{sessionId, title, createdAt, updatedAt, messages}]
M.session_transcript = 'alisio/sessionTranscript' -- {sessionId} → `sessions show --json` object
M.init_agents_md = 'alisio/initAgentsMd' -- {uri, write?, sha256?} → the proposed root AGENTS.md
M.checkpoints = 'alisio/checkpoints' -- {sessionId} → [{checkpoint, createdAt, promptSeq, prompt, files, active}]
M.rewind = 'alisio/rewind' -- {sessionId, checkpoint, resolve?} → {rewound, prompt, files, conflicts, kept, unrestorable, failed, messages}
M.session_changes = 'alisio/sessionChanges' -- {sessionId} → [{path, status, before, after, truncated, hunks, sha256, userChanged}]
M.keep_changes = 'alisio/keepChanges' -- {sessionId, paths?} → {kept}
M.undo_change = 'alisio/undoChange' -- {sessionId, path, hunks?} → {change}
M.audit_sessions = 'alisio/auditSessions' -- {refresh?} → {enabled, running, sessions: [{file, client, format, session, cwd, clientVersion, prompts, deliveries, requests, findings}]}

-- server → client
M.approve = 'alisio/approve' -- request {sessionId, callId, tool, effect, summary, paths, preview?} → {decision, content?, hunks?}
M.session_event = 'alisio/sessionEvent' -- notification {sessionId, event}

return M
