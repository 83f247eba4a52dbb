-- alisio.nvim: the client side of alisio-ls's custom methods (interfaces.md §3.1).
--
-- Views: `:AlisioExplain` (alisio/contextExplain), `:AlisioSkills` (alisio/skillCatalog,
-- alisio/setSkillEnabled), `:AlisioChat` (alisio/runSession + alisio/sessionEvent, approvals
-- answering alisio/approve through vim.ui.select), `:AlisioReport` (alisio/contextReport).
-- Every view is a plain scratch buffer in a floating window (or a split for the chat), so it
-- works in any UI, headless included. The lines last shown by each view are kept in
-- `M.last[<view>]` for scripts and tests.

local M = {}

M.name = 'alisio_ls'

---@type table<string, string[]>
M.last = {}

-- chat state: buffer -> {sessionId?, client_id, request_id?, running}
local chats = {}
local chat_by_session = {}
local pending_chat = nil
local report_views = {} -- sessionId -> {buf, win}

---@param bufnr? integer
---@return vim.lsp.Client?
function M.client(bufnr)
  local clients = vim.lsp.get_clients({ name = M.name, bufnr = bufnr })
  if #clients == 0 then
    clients = vim.lsp.get_clients({ name = M.name })
  end
  return clients[1]
end

local function notify(msg, level)
  vim.notify('alisio: ' .. msg, level or vim.log.levels.INFO)
end

local function with_client(bufnr, fn)
  local client = M.client(bufnr)
  if not client then
    notify('alisio-ls is not running for this buffer (vim.lsp.enable("alisio_ls"))', vim.log.levels.WARN)
    return
  end
  fn(client)
end

--- Sends a request and calls `on_result(result)` on success; errors are reported.
local function request(client, method, params, bufnr, on_result)
  client:request(method, params, function(err, result)
    if err then
      M.last_error = { method = method, code = err.code, message = err.message }
      local code = err.code and (' (' .. err.code .. ')') or ''
      notify(method .. ' failed' .. code .. ': ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    on_result(result)
  end, bufnr)
end

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

local function str(v)
  if v == nil or v == vim.NIL then
    return '-'
  end
  return tostring(v)
end

--- Shows `lines` in a floating scratch window; `q` or <Esc> closes it.
---@return integer buf, integer win
function M.float(view, title, lines)
  M.last[view] = lines
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].filetype = 'alisio'
  local width = 20
  for _, l in ipairs(lines) do
    width = math.max(width, vim.fn.strdisplaywidth(l))
  end
  width = math.min(width + 2, math.max(20, vim.o.columns - 4))
  local height = math.min(#lines, math.max(3, vim.o.lines - 6))
  local win = vim.api.nvim_open_win(buf, true, {
    relative = 'editor',
    width = width,
    height = math.max(1, height),
    row = math.max(0, math.floor((vim.o.lines - height) / 2) - 1),
    col = math.max(0, math.floor((vim.o.columns - width) / 2)),
    style = 'minimal',
    border = 'rounded',
    title = ' ' .. title .. ' ',
    title_pos = 'center',
  })
  vim.wo[win].wrap = false
  for _, key in ipairs({ 'q', '<Esc>' }) do
    vim.keymap.set('n', key, function()
      if vim.api.nvim_win_is_valid(win) then
        vim.api.nvim_win_close(win, true)
      end
    end, { buffer = buf, nowait = true })
  end
  return buf, win
end

-- ---------------------------------------------------------------------------------------------
-- Explain (interfaces.md §1.1)

---@param r table the object of interfaces.md §1.1
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

---@param opts? {uri?: string, host?: string, bufnr?: integer}
function M.explain(opts)
  opts = opts or {}
  local bufnr = opts.bufnr or vim.api.nvim_get_current_buf()
  local uri = opts.uri or vim.uri_from_bufnr(bufnr)
  with_client(bufnr, function(client)
    local params = { uri = uri, host = opts.host }
    request(client, 'alisio/contextExplain', params, bufnr, function(result)
      M.float('explain', 'Alisio: context', M.render_explain(result or {}))
    end)
  end)
end

-- ---------------------------------------------------------------------------------------------
-- Skill catalog (interfaces.md §1.2)

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

---@param catalog table[] the array of interfaces.md §1.2
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

local function catalog_root(client)
  return client.root_dir or (client.config and client.config.root_dir) or vim.fn.getcwd()
end

local function open_skill(client, s)
  if not s or not s.file or s.file == vim.NIL then
    return
  end
  local file = s.file
  if not file:match('^/') then
    file = catalog_root(client) .. '/' .. file
  end
  vim.cmd.edit(vim.fn.fnameescape(file))
end

---@param opts? {bufnr?: integer, id?: string}
function M.skills(opts)
  opts = opts or {}
  local bufnr = opts.bufnr or vim.api.nvim_get_current_buf()
  with_client(bufnr, function(client)
    request(client, 'alisio/skillCatalog', { uri = vim.uri_from_bufnr(bufnr) }, bufnr, function(catalog)
      catalog = catalog or {}
      if opts.id then
        local only = {}
        for _, s in ipairs(catalog) do
          if s.id == opts.id then
            only[#only + 1] = s
          end
        end
        catalog = only
      end
      local buf = M.float('skills', 'Alisio: skills', M.render_skills(catalog))
      local function entry_at_cursor()
        local row = vim.api.nvim_win_get_cursor(0)[1]
        return catalog[row - 1]
      end
      vim.keymap.set('n', '<CR>', function()
        local s = entry_at_cursor()
        vim.cmd.close()
        open_skill(client, s)
      end, { buffer = buf })
      vim.keymap.set('n', 't', function()
        local s = entry_at_cursor()
        if s then
          vim.cmd.close()
          M.set_skill_enabled(client, s.id, not s.enabled, bufnr)
        end
      end, { buffer = buf })
    end)
  end)
end

function M.set_skill_enabled(client, id, enabled, bufnr)
  request(client, 'alisio/setSkillEnabled', { id = id, enabled = enabled }, bufnr, function(entry)
    notify(string.format('%s %s', id, (entry and entry.enabled) and 'enabled' or 'disabled'))
    pcall(vim.lsp.codelens.refresh, { bufnr = bufnr })
  end)
end

--- Flips the `enabled` flag of skill `id` (current state read from the catalog).
function M.toggle_skill(id, bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  with_client(bufnr, function(client)
    request(client, 'alisio/skillCatalog', { uri = vim.uri_from_bufnr(bufnr) }, bufnr, function(catalog)
      for _, s in ipairs(catalog or {}) do
        if s.id == id then
          M.set_skill_enabled(client, id, not s.enabled, bufnr)
          return
        end
      end
      notify('no skill with id ' .. tostring(id), vim.log.levels.WARN)
    end)
  end)
end

-- ---------------------------------------------------------------------------------------------
-- Context Report (governor.md §6)

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
  local reasons = { 'superseded_read', 'stale_bg_output', 'duplicate_search' }
  rows = {}
  for _, reason in ipairs(reasons) do
    local count = t.byReason and t.byReason[reason] or 0
    rows[#rows + 1] = { '  ' .. reason, tostring(saved[reason] or 0), str(count) .. ' result(s)' }
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
  return lines
end

---@param session_id? string defaults to the session of the current chat buffer, else the last one
function M.report(session_id, bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  if not session_id or session_id == '' then
    local chat = chats[bufnr]
    session_id = (chat and chat.sessionId) or M.last_session
  end
  if not session_id then
    notify('no session: start one with :AlisioChat, or pass a session id', vim.log.levels.WARN)
    return
  end
  with_client(bufnr, function(client)
    request(client, 'alisio/contextReport', { sessionId = session_id }, bufnr, function(result)
      local old = report_views[session_id]
      if old and vim.api.nvim_win_is_valid(old.win) then
        vim.api.nvim_win_close(old.win, true)
      end
      local buf, win = M.float('report', 'Alisio: Context Report', M.render_report(result or {}))
      report_views[session_id] = { buf = buf, win = win }
    end)
  end)
end

-- ---------------------------------------------------------------------------------------------
-- Chat (sessions.md §2.1, §8)

local function chat_append(buf, text, newline)
  if not vim.api.nvim_buf_is_valid(buf) then
    return
  end
  local parts = vim.split(text, '\n', { plain = true })
  local last = vim.api.nvim_buf_line_count(buf)
  local cur = vim.api.nvim_buf_get_lines(buf, last - 1, last, false)[1] or ''
  if newline and not (last == 1 and cur == '') then
    vim.api.nvim_buf_set_lines(buf, last, last, false, parts)
  else
    parts[1] = cur .. parts[1]
    vim.api.nvim_buf_set_lines(buf, last - 1, last, false, parts)
  end
  for _, win in ipairs(vim.fn.win_findbuf(buf)) do
    vim.api.nvim_win_set_cursor(win, { vim.api.nvim_buf_line_count(buf), 0 })
  end
end

local function chat_for(params)
  local ev = params.event or {}
  local sid = params.sessionId or ev.sessionId
  local buf = chat_by_session[sid] or (ev.parentSessionId and chat_by_session[ev.parentSessionId])
  if not buf and pending_chat and sid then
    buf = pending_chat
    chat_by_session[sid] = buf
    chats[buf].sessionId = chats[buf].sessionId or sid
  end
  return buf
end

local function one_line(v, max)
  local s = type(v) == 'string' and v or vim.json.encode(v)
  s = s:gsub('%s+', ' ')
  if vim.fn.strchars(s) > max then
    s = vim.fn.strcharpart(s, 0, max - 1) .. '…'
  end
  return s
end

--- Renders one session event as chat text; returns nil for events the chat does not show.
---@return string?, boolean? text, whether it starts a new line
function M.render_event(ev)
  local d = ev.data or {}
  local prefix = ev.parentSessionId and '  [sub-agent] ' or ''
  local t = ev.type
  if t == 'text_delta' then
    return d.text or '', false
  elseif t == 'tool_started' then
    return prefix .. '→ ' .. str(d.name) .. ' ' .. one_line(d.arguments or '', 80), true
  elseif t == 'tool_completed' then
    local mark = d.isError and '✗' or '✓'
    return prefix .. '  ' .. mark .. ' ' .. str(d.name) .. ' ' .. str(d.outcome) .. ' (' .. str(d.durationMs) .. ' ms)', true
  elseif t == 'approval_requested' then
    return prefix .. '? approval: ' .. str(d.summary), true
  elseif t == 'approval_resolved' then
    return prefix .. '  ' .. str(d.decision) .. ' (' .. str(d.source) .. ')', true
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

function M.on_session_event(_, params, _)
  if type(params) ~= 'table' then
    return
  end
  local ev = params.event or {}
  M.events = M.events or {}
  M.events[#M.events + 1] = ev
  local buf = chat_for(params)
  if buf then
    local text, newline = M.render_event(ev)
    if text then
      local chat = chats[buf]
      local is_text = ev.type == 'text_delta'
      -- streamed text continues its line, except right after a tool or approval line
      if is_text and chat.last_kind ~= 'text' and chat.last_kind ~= nil then
        newline = true
      end
      chat.last_kind = is_text and 'text' or 'line'
      chat_append(buf, text, newline)
    end
  end
  -- The report view follows the session live: every governed request re-reads the report.
  if ev.type == 'context_governed' or ev.type == 'run_completed' then
    local view = report_views[params.sessionId]
    if view and vim.api.nvim_win_is_valid(view.win) then
      vim.schedule(function()
        M.report(params.sessionId)
      end)
    end
  end
end

--- Server request alisio/approve: asks with vim.ui.select and waits for the answer (the
--- default vim.ui.select blocks; asynchronous pickers are waited for by vim.wait).
function M.on_approve(_, params, _)
  params = params or {}
  local choices = {
    { label = 'Allow once', decision = 'allow-once' },
    { label = 'Allow for this session', decision = 'allow-session' },
    { label = 'Deny', decision = 'deny' },
  }
  local decision
  local prompt = string.format('alisio: %s [%s]', str(params.summary), str(params.effect))
  vim.ui.select(choices, {
    prompt = prompt,
    format_item = function(c)
      return c.label
    end,
    kind = 'alisio.approve',
  }, function(choice)
    decision = choice and choice.decision or 'deny'
  end)
  vim.wait(300000, function()
    return decision ~= nil
  end, 20)
  return { decision = decision or 'deny' }
end

local function chat_buffer()
  local cur = vim.api.nvim_get_current_buf()
  if chats[cur] then
    return cur
  end
  for buf, _ in pairs(chats) do
    if vim.api.nvim_buf_is_valid(buf) and #vim.fn.win_findbuf(buf) > 0 then
      vim.api.nvim_set_current_win(vim.fn.win_findbuf(buf)[1])
      return buf
    end
  end
  local origin = cur
  vim.cmd('botright vnew')
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'hide'
  vim.bo[buf].swapfile = false
  vim.bo[buf].filetype = 'markdown'
  pcall(vim.api.nvim_buf_set_name, buf, 'alisio://chat/' .. buf)
  chats[buf] = { origin = origin }
  vim.keymap.set('n', 'i', function()
    M.chat()
  end, { buffer = buf, desc = 'alisio: ask' })
  vim.keymap.set('n', '<C-c>', function()
    M.cancel()
  end, { buffer = buf, desc = 'alisio: cancel' })
  vim.keymap.set('n', 'gr', function()
    M.report(nil, buf)
  end, { buffer = buf, desc = 'alisio: Context Report' })
  return buf
end

---@param prompt? string asked with vim.ui.input when absent
function M.chat(prompt)
  local origin_buf = vim.api.nvim_get_current_buf()
  local client = M.client(chats[origin_buf] and chats[origin_buf].origin or origin_buf)
  if not client then
    notify('alisio-ls is not running (open a Markdown file of the workspace first)', vim.log.levels.WARN)
    return
  end
  if not prompt or prompt == '' then
    vim.ui.input({ prompt = 'Ask alisio: ' }, function(input)
      if input and input ~= '' then
        M.chat(input)
      end
    end)
    return
  end
  local buf = chat_buffer()
  local chat = chats[buf]
  if chat.running then
    notify('a run is in progress in this chat; cancel it with <C-c> or :AlisioCancel', vim.log.levels.WARN)
    return
  end
  if vim.api.nvim_buf_get_lines(buf, 0, 1, false)[1] == '' and vim.api.nvim_buf_line_count(buf) == 1 then
    vim.api.nvim_buf_set_lines(buf, 0, 1, false, { '# alisio chat', '', 'i: ask · <C-c>: cancel · gr: Context Report' })
  end
  chat.last_kind = nil
  chat_append(buf, '', true)
  chat_append(buf, '## You', true)
  chat_append(buf, prompt, true)
  chat_append(buf, '', true)
  chat_append(buf, '## Agent', true)
  chat_append(buf, '', true)
  chat.running = true
  chat.client_id = client.id
  if not chat.sessionId then
    pending_chat = buf
  end
  local token = 'alisio-chat-' .. buf .. '-' .. vim.uv.hrtime()
  local params = { prompt = prompt, sessionId = chat.sessionId, workDoneToken = token }
  local ok, id = client:request('alisio/runSession', params, function(err, result)
    chat.running = false
    chat.request_id = nil
    if pending_chat == buf then
      pending_chat = nil
    end
    if err then
      chat_append(buf, '✗ ' .. (err.code == -32800 and 'cancelled' or ('error: ' .. str(err.message))), true)
      return
    end
    result = result or {}
    if result.sessionId then
      chat.sessionId = result.sessionId
      chat_by_session[result.sessionId] = buf
      M.last_session = result.sessionId
    end
    chat_append(buf, string.format('— %s · session %s · Context Report: gr or :AlisioReport %s', str(result.status), str(result.sessionId), str(result.sessionId)), true)
    M.last_result = result
  end, chat.origin)
  if ok then
    chat.request_id = id
  else
    chat.running = false
    chat_append(buf, '✗ the request could not be sent', true)
  end
end

function M.cancel()
  local buf = vim.api.nvim_get_current_buf()
  local chat = chats[buf]
  if not chat or not chat.request_id then
    for _, c in pairs(chats) do
      if c.request_id then
        chat = c
        break
      end
    end
  end
  if not chat or not chat.request_id then
    notify('nothing to cancel')
    return
  end
  local client = vim.lsp.get_client_by_id(chat.client_id)
  if client then
    client:cancel_request(chat.request_id)
  end
end

-- ---------------------------------------------------------------------------------------------
-- Trust, lenses, attach

--- Marks the workspace trusted for the running server (not persisted; to persist it, set
--- init_options.trusted in vim.lsp.config('alisio_ls', …)).
function M.trust(bufnr)
  with_client(bufnr, function(client)
    local settings = vim.deepcopy(client.config.init_options or {})
    settings.trusted = true
    client.settings = client.settings or {}
    client.settings.alisio = settings
    client:notify('workspace/didChangeConfiguration', { settings = { alisio = settings } })
    notify('workspace trusted for this session of alisio-ls')
  end)
end

--- The code lens commands, run client-side (see lsp/alisio_ls.lua).
function M.lens_command(command, ctx)
  local args = command.arguments or {}
  local bufnr = ctx and ctx.bufnr or vim.api.nvim_get_current_buf()
  if command.command == 'alisio.explainContext' then
    M.explain({ uri = args[1], bufnr = bufnr })
  elseif command.command == 'alisio.showSkill' then
    M.skills({ id = args[1], bufnr = bufnr })
  elseif command.command == 'alisio.toggleSkill' then
    M.toggle_skill(args[1], bufnr)
  elseif command.command == 'alisio.showContextReport' then
    M.report(args[1], bufnr)
  end
end

function M.on_attach(client, bufnr)
  if client:supports_method('textDocument/codeLens') then
    pcall(vim.lsp.codelens.refresh, { bufnr = bufnr })
    vim.api.nvim_create_autocmd({ 'BufEnter', 'InsertLeave', 'BufWritePost' }, {
      buffer = bufnr,
      group = vim.api.nvim_create_augroup('alisio_codelens_' .. bufnr, { clear = true }),
      callback = function()
        pcall(vim.lsp.codelens.refresh, { bufnr = bufnr })
      end,
    })
  end
end

return M
