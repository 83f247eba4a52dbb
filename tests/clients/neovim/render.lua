-- Headless check of alisio.nvim's pure renderers (lua/alisio/render.lua): no server, no
-- buffer. Run as `nvim --headless --clean -l render.lua <plugin dir> <out.json>`; writes what
-- each renderer returns for fixed inputs (tests/editors/neovim.rs asserts the exact values).
local plugin, out = arg[1], arg[2]
vim.opt.runtimepath:prepend(plugin)
local r = require('alisio.render')
local result = {
  event_tool = { r.render_event({ type = 'tool_started', data = { name = 'read_file', arguments = { path = 'a.md' } } }) },
  event_text = { r.render_event({ type = 'text_delta', data = { text = 'Hi' } }) },
  event_child = { r.render_event({ type = 'run_failed', parentSessionId = 'p', data = { error = 'boom', code = 'provider' } }) },
  skills_empty = r.render_skills({}),
  prompt_write = r.approval_prompt({ summary = 'Write a.txt (5 bytes)', effect = 'write', preview = { path = 'a.txt', before = vim.NIL, after = 'hello' } }),
  prompt_process = r.approval_prompt({ summary = 'Run echo a b', effect = 'process', preview = { command = 'echo', args = { 'a b', "it's" }, cwd = 'sub' } }),
  prompt_big = r.approval_prompt({ summary = 'Write big.txt (6 bytes)', effect = 'write', preview = { path = 'big.txt', before = vim.NIL, after = vim.NIL, truncated = true } }),
  diffable = { r.diffable({ path = 'a', before = vim.NIL, after = 'x' }), r.diffable({ path = 'a', truncated = true, after = vim.NIL }), r.diffable({ command = 'ls', cwd = '.' }) },
  lines = { r.preview_lines('a\nb\n'), r.preview_lines(vim.NIL), r.preview_lines('x') },
  usage = r.render_usage({ perTool = { read_file = { seen = 12, used = 7, reread = 2 }, bash = { seen = 1, used = 1, reread = 0 } }, notAttributable = 20 }),
  usage_null = r.render_usage(vim.NIL),
  sessions = { r.session_item({ sessionId = 'a1', title = 'Fix it', updatedAt = '2026-12-01T20:00:01.123Z', messages = 4 }), r.session_item({ sessionId = 'b2', title = 'Fix it', updatedAt = '2026-12-01T20:05:00Z', messages = 2, relayOf = 'a1' }) },
  columns = r.columns({ { 'id', 'n' }, { 'long-name', '1' } }),
  -- The unit test of recorded.rs: a shadow request and a governed one (spec/governor.md §11.11).
  replay = r.render_replay({ requests = 3, off = { inputTokens = 1200, cachedTokens = 700, cost = 1325, cacheBreaks = 0 },
    governed = { inputTokens = 900, cachedTokens = 500, cost = 550, cacheBreaks = 1 },
    recorded = { requests = 2, inputTokens = 8300, cachedTokens = 7000, cost = 2325, offCost = 800, governedCost = 350,
      recoveryCost = 0, saved = 450, sentCost = 450, shadowSaved = 100, offBill = 2675, savedShare = 450 / 2675 } }),
  replay_unrecorded = r.render_replay({ requests = 1, off = { inputTokens = 10, cachedTokens = 0, cost = 12.5, cacheBreaks = 0 },
    governed = { inputTokens = 10, cachedTokens = 0, cost = 12.5, cacheBreaks = 0 }, recorded = vim.NIL }),
  replay_none = r.render_replay(vim.NIL),
  recorded_summary = r.recorded_line({ requests = 3, inputTokens = 11300, cachedTokens = 8000, cost = 4925, sentCost = 450,
    saved = 450, shadowSaved = 100, otherRequests = 1, otherCost = 2600, offBill = 5275 }),
}
-- A policy-2 report: the reasons block lists all seven (spec/governor.md §6.4).
local p2 = r.render_report({
  mode = 'on', measured = true, sessionId = 's-2', request = 3, policyVersion = 2, messages = 40, eligibleMessages = 36, segmentsOmitted = 0,
  segments = { { index = 4, kind = 'tool_result', origin = 'x', tokens = 20, criticality = 'low', reason = 'elided', elided = { reason = 'aged_output', by = 'c9', tokensSaved = 400 } } },
  totals = { segments = 1, tokensBefore = 420, tokensSaved = 400, tokensAfter = 20, elided = 3,
    byReason = { superseded_read = 0, stale_bg_output = 0, duplicate_search = 0, oversized = 0, aged_output = 2, expired = 0, denied = 1 } },
})
local from
for i, l in ipairs(p2) do
  if l == 'tokens saved by reason (elided results: count)' then
    from = i
  end
end
result.reasons_p2 = vim.list_slice(p2, from + 1, from + 7)
local f = assert(io.open(out, 'w'))
f:write(vim.json.encode(result))
f:close()
