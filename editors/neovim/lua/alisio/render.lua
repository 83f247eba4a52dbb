-- alisio.nvim renderers: pure functions from the server's JSON to the lines a view shows
-- (explain, skill catalog, Context Report, chat events, approval previews). No buffer, window
-- or LSP call here, so they are tested headless on their own (tests/clients/neovim/render.lua).

local M = {}

---Formats rows as aligned columns. `rows[1]` is the header.
---@param rows string[][]
---@return string[]
function M.columns(rows)
  local widths = {}
  for _, row in ipairs(rows) do
    for i, cell in ipairs(row) do
      widths[i] = math.max(widths[i] or 0, vim.fn.strdisplaywidth(cell))
    end
  end
  local out = {}
  for _, row in ipairs(rows) do
    local cells = {}
    for i, cell in ipairs(row) do
      if i < #row then
        cells[i] = cell .. string.rep(' ', widths[i] - vim.fn.strdisplaywidth(cell))
      else
        cells[i] = cell
      end
    end
    out[#out + 1] = (table.concat(cells, '  '):gsub('%s+$', ''))
  end
  return out
end


function M.str(v)
  if v == nil or v == vim.NIL then
    return '-'
  end
  return tostring(v)
end

local str = M.str

-- Explain (spec/interfaces.md §1.1)

---@param r table the object of spec/interfaces.md §1.1
---@return string[]
function M.render_explain(r)
  local lines = {
    string.format('Instructions for %s (host %s, budget %s bytes)', str(r.path), str(r.host), str(r.maxBytes)),
    '',
  }
  local files = r.files or {}
  if #files == 0 then
    lines[#lines + 1] = 'No instruction file applies to ' .. str(r.path) .. '.'
    return lines
  end
  local rows = { { '#', 'file', 'scope', 'kind', 'bytes', 'kept', 'truncation' } }
  for i, f in ipairs(files) do
    rows[#rows + 1] = { tostring(i), str(f.path), str(f.scope), str(f.kind), str(f.bytes), str(f.keptBytes), str(f.truncation) }
  end
  vim.list_extend(lines, M.columns(rows))
  lines[#lines + 1] = ''
  if r.omittedBytes and r.omittedBytes ~= vim.NIL and r.omittedBytes > 0 then
    lines[#lines + 1] = 'omitted: ' .. r.omittedBytes .. ' bytes'
  end
  if r.notice and r.notice ~= vim.NIL then
    lines[#lines + 1] = 'notice: ' .. r.notice
  end
  lines[#lines + 1] = 'The closest file wins on conflicts.'
  return lines
end

-- Skill catalog (spec/interfaces.md §1.2)

local function skill_status(s)
  if s.shadowedBy and s.shadowedBy ~= vim.NIL then
    return 'shadowed by ' .. tostring(s.shadowedBy)
  end
  if s.enabled == false then
    return 'disabled'
  end
  if s.effective then
    return 'effective'
  end
  return 'not effective'
end

---@param catalog table[] the array of spec/interfaces.md §1.2
---@return string[]
function M.render_skills(catalog)
  if #catalog == 0 then
    return { 'No skills discovered.' }
  end
  local rows = { { 'id', 'scope', 'status', 'tokens', 'description' } }
  for _, s in ipairs(catalog) do
    local desc = str(s.description):gsub('%s+', ' ')
    if vim.fn.strchars(desc) > 60 then
      desc = vim.fn.strcharpart(desc, 0, 59) .. '…'
    end
    rows[#rows + 1] = { str(s.displayId ~= nil and s.displayId or s.id), str(s.scope), skill_status(s), '~' .. str(s.approximateTokens), desc }
  end
  local lines = M.columns(rows)
  lines[#lines + 1] = ''
  lines[#lines + 1] = '<CR> open SKILL.md · t enable/disable · q close'
  return lines
end

-- Context Report (spec/governor.md §6)

local function bar(value, max, width)
  if max <= 0 then
    return ''
  end
  return string.rep('█', math.max(value > 0 and 1 or 0, math.floor(value / max * width + 0.5)))
end

---@param r table a ContextReport
---@return string[]
function M.render_report(r)
  if r.measured == false or r.mode == 'off' then
    return {
      string.format('Context Governor is off for session %s: nothing is measured.', str(r.sessionId)),
      'Set context.governor to "shadow" or "on" to see the report.',
    }
  end
  local t = r.totals or {}
  local lines = {
    string.format('session %s · mode %s · request %s · policy v%s', str(r.sessionId), str(r.mode), str(r.request), str(r.policyVersion)),
    string.format('messages %s (eligible %s)%s · segments %s (%s omitted from the list)', str(r.messages), str(r.eligibleMessages),
      r.compacted and ' · compacted' or '', str(t.segments), str(r.segmentsOmitted)),
    string.format('tokens: before %s · saved %s · after %s · elided results %s', str(t.tokensBefore), str(t.tokensSaved), str(t.tokensAfter), str(t.elided)),
  }
  local per_segment = vim.tbl_map(function(s)
    return tonumber(s.tokens) or 0
  end, r.segments or {})
  lines[#lines + 1] = 'tokens by segment ' .. require('alisio.spark').line(per_segment)
  local by_kind, order = {}, {}
  for _, s in ipairs(r.segments or {}) do
    if not by_kind[s.kind] then
      by_kind[s.kind] = 0
      order[#order + 1] = s.kind
    end
    by_kind[s.kind] = by_kind[s.kind] + (tonumber(s.tokens) or 0)
  end
  local saved = {}
  for _, s in ipairs(r.segments or {}) do
    if type(s.elided) == 'table' then
      saved[s.elided.reason] = (saved[s.elided.reason] or 0) + (tonumber(s.elided.tokensSaved) or 0)
    end
  end
  local max = 0
  for _, v in pairs(by_kind) do
    max = math.max(max, v)
  end
  lines[#lines + 1] = ''
  lines[#lines + 1] = 'tokens by kind (listed segments)'
  local rows = {}
  for _, k in ipairs(order) do
    rows[#rows + 1] = { '  ' .. k, tostring(by_kind[k]), bar(by_kind[k], max, 30) }
  end
  vim.list_extend(lines, M.columns(rows))
  lines[#lines + 1] = ''
  lines[#lines + 1] = 'tokens saved by reason (elided results: count)'
  -- Every reason the report carries, in spec/governor.md §6.4 order (a decoded Lua table has
  -- no key order): policy 1's three always, policy 2's four when present.
  local reasons = { 'superseded_read', 'stale_bg_output', 'duplicate_search', 'oversized', 'aged_output', 'expired', 'denied' }
  rows = {}
  for i, reason in ipairs(reasons) do
    local count = t.byReason and t.byReason[reason]
    if i <= 3 or count ~= nil then
      rows[#rows + 1] = { '  ' .. reason, tostring(saved[reason] or 0), str(count or 0) .. ' result(s)' }
    end
  end
  vim.list_extend(lines, M.columns(rows))
  if t.byCriticality then
    local c = t.byCriticality
    lines[#lines + 1] = string.format('criticality: pinned %s · high %s · normal %s · low %s', str(c.pinned), str(c.high), str(c.normal), str(c.low))
  end
  if type(r.invariants) == 'table' then
    lines[#lines + 1] = string.format('invariants: sent %s · %s item(s) · %s omitted', tostring(r.invariants.sent), str(r.invariants.total), str(r.invariants.omitted))
  end
  lines[#lines + 1] = ''
  rows = { { '#', 'kind', 'origin', 'tokens', 'criticality', 'reason', 'elided' } }
  for _, s in ipairs(r.segments or {}) do
    local elided = '-'
    if type(s.elided) == 'table' then
      elided = string.format('%s by %s (-%s)', str(s.elided.reason), str(s.elided.by), str(s.elided.tokensSaved))
    end
    rows[#rows + 1] = { str(s.index), str(s.kind), str(s.origin), str(s.tokens), str(s.criticality), str(s.reason), elided }
  end
  vim.list_extend(lines, M.columns(rows))
  vim.list_extend(lines, M.render_replay(r.replay))
  vim.list_extend(lines, M.render_usage(r.usage))
  return lines
end

local function share(a, b)
  a, b = tonumber(a) or 0, tonumber(b) or 0
  if b > 0 then
    return string.format('%.3f', a / b)
  end
  return '-'
end

--- The recorded bill of a live session (spec/governor.md §11.11): the sentence `sessions report`
--- prints (`recorded::live_line`), word for word.
function M.recorded_line(b)
  local n = tonumber(b.requests) or 0
  local other_n = tonumber(b.otherRequests) or 0
  local other = ''
  if other_n > 0 then
    other = string.format(', %.1f of it for %d compaction request%s the replay does not see', tonumber(b.otherCost) or 0, other_n,
      other_n == 1 and '' or 's')
  end
  local line = string.format(
    "bill (tokens as the provider reported them, at the replay's prices): %d request%s, %s input tokens (%s cached), cost %.1f%s; the replay covers %.1f of it (%s); saved %.1f of the %.1f off would have been billed (%s)",
    n, n == 1 and '' or 's', str(b.inputTokens), str(b.cachedTokens), tonumber(b.cost) or 0, other, tonumber(b.sentCost) or 0,
    share(b.sentCost, b.cost), tonumber(b.saved) or 0, tonumber(b.offBill) or 0, share(b.saved, b.offBill))
  local shadow = tonumber(b.shadowSaved) or 0
  if shadow ~= 0 then
    line = line .. string.format(', %.1f of it in shadow requests (not sent, no recovery charged)', shadow)
  end
  return line
end

--- The report's cache-aware replay (spec/governor.md §11.8) and recorded bill (§11.11), worded
--- as `sessions report` words them.
function M.render_replay(rp)
  if type(rp) ~= 'table' or type(rp.off) ~= 'table' or type(rp.governed) ~= 'table' then
    return {}
  end
  local lines = {
    '',
    string.format('replay: %s requests; tokens governed/off %s; cost governed/off %s; %s cache breaks', str(rp.requests),
      share(rp.governed.inputTokens, rp.off.inputTokens), share(rp.governed.cost, rp.off.cost), str(rp.governed.cacheBreaks)),
  }
  if type(rp.recorded) == 'table' then
    lines[#lines + 1] = M.recorded_line(rp.recorded)
  end
  return lines
end

--- The usage ledger (spec/governor.md §8): per tool, results seen, used, re-read and unused.
function M.render_usage(u)
  if type(u) ~= 'table' or type(u.perTool) ~= 'table' then
    return {}
  end
  local tools = vim.tbl_keys(u.perTool)
  table.sort(tools)
  if #tools == 0 then
    return { '', string.format('usage ledger: no attributable tool results yet; %s not attributable', str(u.notAttributable)) }
  end
  local rows = { { 'tool', 'seen', 'used', 'reread', 'unused' } }
  for _, t in ipairs(tools) do
    local c = u.perTool[t]
    local seen, used, reread = tonumber(c.seen) or 0, tonumber(c.used) or 0, tonumber(c.reread) or 0
    rows[#rows + 1] = { t, tostring(seen), tostring(used), tostring(reread), tostring(math.max(0, seen - used - reread)) }
  end
  local lines = { '', 'tool results used by the model (usage ledger)' }
  vim.list_extend(lines, M.columns(rows))
  lines[#lines + 1] = str(u.notAttributable) .. ' results not attributable'
  return lines
end

-- Chat events (spec/sessions.md §8)

function M.one_line(v, max)
  local s = type(v) == 'string' and v or vim.json.encode(v)
  s = s:gsub('%s+', ' ')
  if vim.fn.strchars(s) > max then
    s = vim.fn.strcharpart(s, 0, max - 1) .. '…'
  end
  return s
end

local one_line = M.one_line

--- Renders one session event as chat text; returns nil for events the chat does not show.
---@return string?, boolean? text, whether it starts a new line
function M.render_event(ev)
  local d = ev.data or {}
  local prefix = ev.parentSessionId and '  [sub-agent] ' or ''
  local t = ev.type
  if t == 'text_delta' then
    return d.text or '', false
  elseif t == 'run_started' and not ev.parentSessionId and type(d.sandbox) == 'table' then
    -- the process sandbox badge (spec/sessions.md §10.4)
    local sb = d.sandbox.mode == 'off' and 'no sandbox'
      or ('sandbox: ' .. str(d.sandbox.mode) .. (d.sandbox.network and ' + network' or ''))
    return '[' .. sb .. ']', true
  elseif t == 'sandbox_unavailable' then
    return '! sandbox ' .. str(d.requested) .. ' unavailable: ' .. str(d.reason) .. ' (processes run unsandboxed)', true
  elseif t == 'tool_started' then
    return prefix .. '→ ' .. str(d.name) .. ' ' .. one_line(d.arguments or '', 80), true
  elseif t == 'tool_completed' then
    local mark = d.isError and '✗' or '✓'
    return prefix .. '  ' .. mark .. ' ' .. str(d.name) .. ' ' .. str(d.outcome) .. ' (' .. str(d.durationMs) .. ' ms)', true
  elseif t == 'approval_requested' then
    return prefix .. '? approval: ' .. str(d.summary), true
  elseif t == 'approval_resolved' then
    return prefix .. '  ' .. str(d.decision) .. ' (' .. str(d.source) .. ')', true
  elseif t == 'session_relayed' then
    -- the relay (spec/sessions.md §12.5): the chat continues in the next link of the chain
    return '↪ relay: the context is nearly full; continuing in session ' .. str(d.to), true
  elseif t == 'compaction_completed' then
    return prefix .. '(history compacted: ' .. str(d.before) .. ' → ' .. str(d.after) .. ' tokens)', true
  elseif t == 'run_completed' and not ev.parentSessionId then
    return '', true
  elseif t == 'run_failed' then
    return prefix .. '✗ failed: ' .. str(d.error) .. ' (' .. str(d.code) .. ')', true
  elseif t == 'run_cancelled' then
    return prefix .. '✗ cancelled', true
  end
  return nil
end

-- Approvals (spec/sessions.md §4.4) and their preview (docs/editors.md)

--- Whether an approval's preview is a file change with both sides to diff.
function M.diffable(preview)
  return type(preview) == 'table' and type(preview.path) == 'string' and preview.truncated ~= true and type(preview.after) == 'string'
end

local function shell_quote(a)
  if a:match('^[%w@%%+=:,./-]+$') then
    return a
  end
  return "'" .. a:gsub("'", "'\\''") .. "'"
end

--- The vim.ui.select prompt of an approval: the summary and effect, and what the preview adds
--- that the diff split does not show (a process's command line and directory, a change too
--- large to preview).
function M.approval_prompt(params)
  local prompt = string.format('alisio: %s [%s]', str(params.summary), str(params.effect))
  local p = params.preview
  if type(p) ~= 'table' then
    return prompt
  end
  if type(p.command) == 'string' then
    local line = { p.command }
    for _, a in ipairs(type(p.args) == 'table' and p.args or {}) do
      line[#line + 1] = shell_quote(tostring(a))
    end
    return prompt .. ' — $ ' .. table.concat(line, ' ') .. ' (in ' .. str(p.cwd) .. ')'
  end
  if p.truncated == true then
    return prompt .. ' — ' .. str(p.path) .. ': over 1 MiB, no preview'
  end
  return prompt
end

--- The lines of one side of a file preview (`nil` text: none).
function M.preview_lines(text)
  if type(text) ~= 'string' or text == '' then
    return {}
  end
  local lines = vim.split(text, '\n', { plain = true })
  if lines[#lines] == '' then
    lines[#lines] = nil
  end
  return lines
end

-- Sessions (spec/sessions.md §1.9)

--- One line of the session list: title, time, message count.
function M.session_item(s)
  local when = str(s.updatedAt):gsub('T', ' '):gsub('%.%d+Z?$', ''):gsub('Z$', '')
  local item = string.format('%s · %s · %s messages', str(s.title ~= vim.NIL and s.title or s.sessionId), when, str(s.messages))
  -- the relay chain (spec/sessions.md §12.5), as `sessions list` shows it
  if type(s.relayOf) == 'string' then
    item = item .. ' (relay of ' .. s.relayOf .. ')'
  end
  return item
end

local function texts(content, kind)
  local out = {}
  for _, p in ipairs(type(content) == 'table' and content or {}) do
    if p.type == kind then
      out[#out + 1] = p
    end
  end
  return out
end

--- The chat lines of an earlier session's transcript (`alisio/sessionTranscript`).
function M.transcript_lines(t)
  local lines = { '# alisio chat', '', 'i: ask · <C-c>: cancel · gr: Context Report', '' }
  local function add(text)
    vim.list_extend(lines, vim.split(text, '\n', { plain = true }))
  end
  for _, row in ipairs(t.messages or {}) do
    local m = row.message or {}
    if row.compacted == true then
      -- summarised away; the checkpoint stands for it
    elseif row.role == 'user' and row.kind == 'checkpoint' then
      add('(earlier history was compacted into a summary)')
    elseif row.role == 'user' then
      add('## You')
      local prompt = {}
      for _, p in ipairs(texts(m.content, 'text')) do
        local path, a, b = p.text:match('^<attachment path="([^"]*)" lines="(%d+)%-(%d+)">\n')
        if not path then
          path = p.text:match('^<attachment path="([^"]*)">\n')
        end
        if path then
          path = path:gsub('&quot;', '"'):gsub('&amp;', '&')
          add('📎 ' .. path .. (a and (':' .. a .. '-' .. b) or ''))
        else
          prompt[#prompt + 1] = p.text
        end
      end
      add(table.concat(prompt))
      add('')
      add('## Agent')
      add('')
    elseif row.role == 'assistant' then
      for _, p in ipairs(texts(m.content, 'text')) do
        add(p.text)
      end
      for _, c in ipairs(texts(m.content, 'tool_call')) do
        add('→ ' .. str(c.name) .. ' ' .. M.one_line(c.arguments or '', 80))
      end
    elseif row.role == 'tool' then
      add('  ' .. (m.isError and '✗' or '✓') .. ' ' .. str(m.name) .. ' ' .. str(m.outcome))
    end
  end
  return lines
end

--- The lines of `:AlisioAudit` (alisio/auditSessions, spec/interfaces.md §4.6): one block per
--- recent session, newest first per client, with its findings.
function M.render_audit(r)
  r = r or {}
  if r.enabled == false then
    return { 'Session audit is off (audit.enabled)' }
  end
  local lines = {}
  if r.running then
    lines[#lines + 1] = 'Auditing recent sessions…'
  end
  local sessions = r.sessions or {}
  if #sessions == 0 and not r.running then
    lines[#lines + 1] = 'No recent Claude Code or Codex session of this workspace'
  end
  for _, s in ipairs(sessions) do
    local n = #(s.findings or {})
    lines[#lines + 1] = string.format('%s %s · %d prompt(s) · %s', M.str(s.client), M.str(s.session):sub(1, 8), s.prompts or 0, n == 0 and 'as predicted' or (n .. ' finding(s)'))
    for _, f in ipairs(s.findings or {}) do
      lines[#lines + 1] = '  ' .. M.str(f.message)
    end
  end
  return lines
end

return M
