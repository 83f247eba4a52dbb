-- alisio.nvim chat (spec/sessions.md §2.1, §8): the chat buffer, `alisio/runSession`, the
-- streamed `alisio/sessionEvent` envelopes and the `alisio/approve` request. The module state
-- the tests read (`last_result`, `last_session`, `events`) stays on require('alisio').

local ext = require('alisio.ext')
local render = require('alisio.render')
local str = render.str

local M = {}

-- chat state: buffer -> {sessionId?, client_id, request_id?, running}
local chats = {}
local chat_by_session = {}
local pending_chat = nil

local function A()
  return require('alisio')
end

local function notify(msg, level)
  vim.notify('alisio: ' .. msg, level or vim.log.levels.INFO)
end

--- The session shown in chat buffer `buf`, if any.
function M.session_of(buf)
  return chats[buf] and chats[buf].sessionId
end

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

function M.on_session_event(_, params, _)
  if type(params) ~= 'table' then
    return
  end
  local ev = params.event or {}
  local root = A()
  root.events = root.events or {}
  root.events[#root.events + 1] = ev
  local buf = chat_for(params)
  -- spec/sessions.md §12.5: a relay continues the chat in a new session; follow it.
  if buf and ev.type == 'session_relayed' and not ev.parentSessionId and type(ev.data) == 'table' and ev.data.to then
    chat_by_session[ev.data.to] = buf
    chats[buf].sessionId = ev.data.to
  end
  if buf then
    local text, newline = render.render_event(ev)
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
  -- The report view follows the session live: every governed request re-reads the report, and
  -- every answered one (its recorded bill, spec/governor.md §11.11).
  if ev.type == 'context_governed' or ev.type == 'turn_completed' or ev.type == 'run_completed' then
    if root.report_shown(params.sessionId) then
      vim.schedule(function()
        root.report(params.sessionId)
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
  local diff = render.diffable(params.preview) and M.open_diff(params) or nil
  local review = diff and M.review
  vim.ui.select(choices, {
    prompt = render.approval_prompt(params),
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
  -- spec/sessions.md §4.4 "Review before a write": what the right side holds when allowed is
  -- what is written; the server refuses it when the file changed meanwhile.
  local reply = { decision = decision or 'deny' }
  if review and reply.decision ~= 'deny' and vim.api.nvim_buf_is_valid(review.buf) then
    local text = M.review_text(review)
    if text ~= review.after then
      reply.content = text
    end
  end
  if diff then
    M.close_diff(diff)
  end
  M.review = nil
  return reply
end

local function joined(lines, eol)
  if #lines == 0 or (#lines == 1 and lines[1] == '') then
    return ''
  end
  return table.concat(lines, '\n') .. (eol and '\n' or '')
end

--- The text of the review's right side, with the proposal's final newline.
function M.review_text(review)
  return joined(vim.api.nvim_buf_get_lines(review.buf, 0, -1, false), review.eol)
end

-- The hunk of `from` → the right side's text that holds line `lnum` of the right side
-- (vim.diff indices, 1-based; a count of 0 sits after its start line).
local function hunk_at(from, cur, lnum)
  for _, h in ipairs(vim.diff(from, cur, { result_type = 'indices' })) do
    local sa, ca, sb, cb = h[1], h[2], h[3], h[4]
    if (cb > 0 and lnum >= sb and lnum < sb + cb) or (cb == 0 and (lnum == sb or (sb == 0 and lnum == 1))) then
      return sa, ca, sb, cb
    end
  end
end

--- Replaces the hunk under the cursor of the review's right side with the text of `side`
--- (`before`: reject it; `after`: take the proposal's again). Returns whether a hunk was there.
function M.review_hunk(side)
  local review = M.review
  if not review or not vim.api.nvim_buf_is_valid(review.buf) then
    notify('no change is under review', vim.log.levels.WARN)
    return false
  end
  local lnum = vim.api.nvim_win_get_cursor(0)[1]
  local lines = vim.api.nvim_buf_get_lines(review.buf, 0, -1, false)
  local cur = table.concat(lines, '\n') .. '\n'
  local src = side == 'before' and review.before_lines or review.after_lines
  local from = #src == 0 and '' or (table.concat(src, '\n') .. '\n')
  local sa, ca, sb, cb = hunk_at(from, cur, lnum)
  if not sa then
    notify('no hunk under the cursor', vim.log.levels.WARN)
    return false
  end
  local first = cb > 0 and sb - 1 or sb
  local repl = {}
  for i = sa, sa + ca - 1 do
    repl[#repl + 1] = src[i]
  end
  vim.api.nvim_buf_set_lines(review.buf, first, first + cb, false, repl)
  return true
end

local function scratch(name, lines, ft)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].bufhidden = 'wipe'
  pcall(vim.api.nvim_buf_set_name, buf, name)
  if ft then
    vim.bo[buf].filetype = ft
  end
  return buf
end

--- Opens the preview of a file change in a new tab: the current text left, the proposed text
--- right, in diff mode (read-only scratch buffers). Returns the tab page.
function M.open_diff(params)
  local p = params.preview
  local ft = vim.filetype.match({ filename = p.path })
  local base = 'alisio://preview/' .. params.callId .. '/'
  local before = scratch(base .. 'current/' .. p.path, render.preview_lines(p.before), ft)
  local after = scratch(base .. 'proposed/' .. p.path, render.preview_lines(p.after), ft)
  -- The proposed side is editable (spec/sessions.md §4.4): what it holds when allowed is written.
  vim.bo[after].modifiable = true
  M.review = {
    buf = after,
    after = p.after,
    before_lines = render.preview_lines(p.before),
    after_lines = render.preview_lines(p.after),
    eol = p.after:sub(-1) == '\n' or (p.after == '' and type(p.before) == 'string' and p.before:sub(-1) == '\n'),
  }
  vim.api.nvim_buf_create_user_command(after, 'AlisioHunkReject', function()
    M.review_hunk('before')
  end, { desc = 'alisio: reject the hunk under the cursor (keep the current text)' })
  vim.api.nvim_buf_create_user_command(after, 'AlisioHunkAccept', function()
    M.review_hunk('after')
  end, { desc = "alisio: take the proposal's text of the hunk under the cursor again" })
  vim.keymap.set('n', 'gx', function()
    M.review_hunk('before')
  end, { buffer = after, desc = 'alisio: reject hunk' })
  vim.keymap.set('n', 'ga', function()
    M.review_hunk('after')
  end, { buffer = after, desc = 'alisio: accept hunk' })
  vim.cmd('tabnew')
  local tab = vim.api.nvim_get_current_tabpage()
  local empty = vim.api.nvim_get_current_buf()
  vim.api.nvim_win_set_buf(0, before)
  vim.cmd('diffthis')
  vim.cmd('rightbelow vsplit')
  vim.api.nvim_win_set_buf(0, after)
  vim.cmd('diffthis')
  if vim.api.nvim_buf_is_valid(empty) and empty ~= before and empty ~= after then
    pcall(vim.api.nvim_buf_delete, empty, { force = true })
  end
  A().last.diff = {
    before = render.preview_lines(p.before),
    after = render.preview_lines(p.after),
    names = { vim.api.nvim_buf_get_name(before), vim.api.nvim_buf_get_name(after) },
  }
  return tab
end

function M.close_diff(tab)
  if vim.api.nvim_tabpage_is_valid(tab) and #vim.api.nvim_list_tabpages() > 1 then
    local nr = vim.api.nvim_tabpage_get_number(tab)
    pcall(vim.cmd, 'tabclose! ' .. nr)
  end
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
    A().report(nil, buf)
  end, { buffer = buf, desc = 'alisio: Context Report' })
  return buf
end

-- Attachments for the next prompt: {uri, range?, label}
M.pending = {}

--- Adds buffer `bufnr` (or lines `line1`..`line2` of it, 1-based) to the next prompt. The
--- buffer is attached to the client first, so the server's overlay holds its text as shown,
--- unsaved edits included.
function M.attach(bufnr, line1, line2)
  bufnr = (bufnr and bufnr ~= 0) and bufnr or vim.api.nvim_get_current_buf()
  if chats[bufnr] then
    notify('the chat buffer cannot be attached', vim.log.levels.WARN)
    return
  end
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == '' then
    notify('this buffer has no file name', vim.log.levels.WARN)
    return
  end
  local client = A().client(bufnr)
  if client and not vim.lsp.buf_is_attached(bufnr, client.id) then
    vim.lsp.buf_attach_client(bufnr, client.id)
  end
  local label = vim.fn.fnamemodify(name, ':.')
  local a = { uri = vim.uri_from_bufnr(bufnr), label = label }
  if line1 and line2 then
    -- whole lines; the end at character 0 of the next line stops before it (server rule)
    a.range = { start = { line = line1 - 1, character = 0 }, ['end'] = { line = line2, character = 0 } }
    a.label = string.format('%s:%d-%d', label, line1, line2)
  end
  for _, p in ipairs(M.pending) do
    if p.label == a.label then
      return
    end
  end
  M.pending[#M.pending + 1] = a
  notify('attached ' .. a.label .. ' to the next prompt')
end

---@param prompt? string asked with vim.ui.input when absent
---@param range? {line1: integer, line2: integer} lines of the current buffer to attach
function M.chat(prompt, range)
  local origin_buf = vim.api.nvim_get_current_buf()
  if range and not chats[origin_buf] then
    M.attach(origin_buf, range.line1, range.line2)
  end
  local client = A().client(chats[origin_buf] and chats[origin_buf].origin or origin_buf)
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
  local attachments = {}
  for _, a in ipairs(M.pending) do
    chat_append(buf, '📎 ' .. a.label, true)
    attachments[#attachments + 1] = { uri = a.uri, range = a.range }
  end
  M.pending = {}
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
  -- spec/sessions.md §12.1: vim.g.alisio_chat_mode = 'coordinator' starts coordinator sessions
  -- (else the server's session.mode applies)
  if type(vim.g.alisio_chat_mode) == 'string' then
    params.mode = vim.g.alisio_chat_mode
  end
  if #attachments > 0 then
    params.attachments = attachments
  end
  local ok, id = client:request(ext.run_session, params, function(err, result)
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
      A().last_session = result.sessionId
    end
    chat_append(buf, string.format('— %s · session %s · Context Report: gr or :AlisioReport %s', str(result.status), str(result.sessionId), str(result.sessionId)), true)
    A().last_result = result
  end, chat.origin)
  if ok then
    chat.request_id = id
  else
    chat.running = false
    chat_append(buf, '✗ the request could not be sent', true)
  end
end

--- Lists the workspace's earlier sessions; the one picked opens in a chat buffer with its
--- transcript, and the next prompt there continues it.
function M.sessions()
  local client = A().client()
  if not client then
    notify('alisio-ls is not running', vim.log.levels.WARN)
    return
  end
  client:request(ext.list_sessions, {}, function(err, list)
    if err then
      notify('listing sessions failed: ' .. str(err.message), vim.log.levels.ERROR)
      return
    end
    list = list or {}
    A().last.sessions = vim.tbl_map(render.session_item, list)
    if #list == 0 then
      notify('no earlier session in this workspace')
      return
    end
    vim.ui.select(list, { prompt = 'alisio: resume which session?', format_item = render.session_item, kind = 'alisio.sessions' }, function(s)
      if s then
        M.open_session(client, s.sessionId)
      end
    end)
  end)
end

function M.open_session(client, session_id)
  client:request(ext.session_transcript, { sessionId = session_id }, function(err, t)
    if err then
      notify('reading the session failed: ' .. str(err.message), vim.log.levels.ERROR)
      return
    end
    local buf = chat_buffer()
    local chat = chats[buf]
    if chat.running then
      notify('a run is in progress in this chat', vim.log.levels.WARN)
      return
    end
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, render.transcript_lines(t or {}))
    if chat.sessionId then
      chat_by_session[chat.sessionId] = nil
    end
    chat.sessionId = session_id
    chat.last_kind = nil
    chat_by_session[session_id] = buf
    A().last_session = session_id
    A().opened_session = session_id
  end)
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

return M
