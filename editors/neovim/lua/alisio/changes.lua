-- alisio.nvim Changes and Rewind (spec/sessions.md §13.3, §13.4): `:AlisioChanges` lists the
-- files a session changed with their hunks (alisio/sessionChanges) in a scratch buffer where
-- `u` undoes the file or the hunk under the cursor (alisio/undoChange), `K` keeps the file
-- (alisio/keepChanges) and `R` reloads; `:AlisioRewind` picks a checkpoint (alisio/checkpoints)
-- and rewinds files and conversation to it (alisio/rewind), asking first when you changed files
-- since. The lines shown are kept in require('alisio').last.changes, the last rewind's report
-- in require('alisio').last_rewind.

local ext = require('alisio.ext')
local str = require('alisio.render').str

local M = {}

-- changes buffer -> {session, client, items: line -> {path, hunk?, change}}
local views = {}

local function A()
  return require('alisio')
end

local function notify(msg, level)
  vim.notify('alisio: ' .. msg, level or vim.log.levels.INFO)
end

local STATUS = { added = 'A', modified = 'M', deleted = 'D' }

local function split(text)
  if text == nil or text == vim.NIL then
    return {}
  end
  local lines = vim.split(text, '\n', { plain = true })
  if lines[#lines] == '' then
    lines[#lines] = nil
  end
  return lines
end

--- The lines of the Changes view and, per line, what `u` and `K` act on (pure).
---@return string[] lines, table<integer, {path: string, hunk?: integer}> items
function M.render(session_id, changes)
  local lines = { string.format('Changes of session %s: %d file(s)   u undo · K keep · R reload', str(session_id), #changes) }
  local items = {}
  for _, c in ipairs(changes) do
    local note = ''
    if c.userChanged then
      note = '   (changed by you since: undo refused)'
    elseif c.truncated then
      note = '   (too large to show its hunks)'
    end
    lines[#lines + 1] = string.format('%s %s%s', STATUS[c.status] or '?', c.path, note)
    items[#lines] = { path = c.path }
    local before, after = split(c.before), split(c.after)
    for i, h in ipairs(c.hunks or {}) do
      lines[#lines + 1] = string.format('  @@ -%d,%d +%d,%d @@', h.oldStart + 1, h.oldLines, h.newStart + 1, h.newLines)
      items[#lines] = { path = c.path, hunk = i }
      for k = h.oldStart + 1, h.oldStart + h.oldLines do
        lines[#lines + 1] = '  -' .. (before[k] or '')
        items[#lines] = { path = c.path, hunk = i }
      end
      for k = h.newStart + 1, h.newStart + h.newLines do
        lines[#lines + 1] = '  +' .. (after[k] or '')
        items[#lines] = { path = c.path, hunk = i }
      end
    end
  end
  return lines, items
end

local function session_or_warn(session_id)
  local sid = session_id
  if not sid or sid == '' then
    sid = require('alisio.chat').session_of(vim.api.nvim_get_current_buf()) or A().last_session
  end
  if not sid then
    notify('no session yet: start one with :AlisioChat or open one with :AlisioSessions', vim.log.levels.WARN)
  end
  return sid
end

local function view_buffer(session_id)
  local name = 'alisio://changes/' .. session_id
  local buf = vim.fn.bufnr(name)
  if buf ~= -1 and vim.api.nvim_buf_is_valid(buf) then
    local wins = vim.fn.win_findbuf(buf)
    if #wins > 0 then
      vim.api.nvim_set_current_win(wins[1])
    else
      vim.cmd('botright split')
      vim.api.nvim_win_set_buf(0, buf)
    end
    return buf
  end
  vim.cmd('botright new')
  buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'hide'
  vim.bo[buf].swapfile = false
  vim.bo[buf].filetype = 'diff'
  pcall(vim.api.nvim_buf_set_name, buf, name)
  local function at(fn)
    return function()
      fn(buf, vim.api.nvim_win_get_cursor(0)[1])
    end
  end
  vim.keymap.set('n', 'u', at(M.undo_at), { buffer = buf, desc = 'alisio: undo the file or hunk under the cursor' })
  vim.keymap.set('n', 'K', at(M.keep_at), { buffer = buf, desc = 'alisio: keep the file under the cursor' })
  vim.keymap.set('n', 'R', function()
    M.open(session_id)
  end, { buffer = buf, desc = 'alisio: reload the changes' })
  return buf
end

--- Shows the changes of `session_id` (default: this chat's, else the last session).
function M.open(session_id)
  local sid = session_or_warn(session_id)
  local client = sid and A().client()
  if not client then
    return
  end
  client:request(ext.session_changes, { sessionId = sid }, function(err, changes)
    if err then
      A().last_error = { method = ext.session_changes, code = err.code, message = err.message }
      notify('reading the changes failed: ' .. str(err.message), vim.log.levels.ERROR)
      return
    end
    local lines, items = M.render(sid, changes or {})
    local buf = view_buffer(sid)
    vim.bo[buf].modifiable = true
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
    vim.bo[buf].modifiable = false
    views[buf] = { session = sid, items = items, changes = changes or {} }
    A().last.changes = lines
  end)
end

--- `u` on line `lnum` of a Changes view: the hunk under the cursor, or the whole file on its
--- line. A refusal (you changed the file since) is shown and recorded in last.changes_error.
function M.undo_at(buf, lnum)
  local v = views[buf]
  local item = v and v.items[lnum]
  local client = A().client()
  if not item or not client then
    return
  end
  local params = { sessionId = v.session, path = item.path }
  if item.hunk then
    for _, c in ipairs(v.changes) do
      if c.path == item.path then
        params.hunks = {}
        for i = 1, #c.hunks do
          params.hunks[i] = (i == item.hunk)
        end
      end
    end
  end
  A().last.changes = nil
  A().changes_error = nil
  client:request(ext.undo_change, params, function(err)
    if err then
      A().changes_error = err.message
      notify('undo refused: ' .. str(err.message), vim.log.levels.WARN)
    end
    M.open(v.session)
  end)
end

--- `K` on line `lnum`: the file's current text becomes its baseline.
function M.keep_at(buf, lnum)
  local v = views[buf]
  local item = v and v.items[lnum]
  local client = A().client()
  if not item or not client then
    return
  end
  A().last.changes = nil
  client:request(ext.keep_changes, { sessionId = v.session, paths = { item.path } }, function()
    M.open(v.session)
  end)
end

local function after_rewind(client, sid, r)
  A().last_rewind = r
  local n = #(r.files or {})
  notify(string.format('rewound to checkpoint %d: %d file(s), %d message(s) set aside', r.checkpoint, n, r.messages and r.messages.removed or 0))
  -- The chat shows the conversation as it is now; the rewound prompt is offered again.
  require('alisio.chat').open_session(client, sid)
  if r.prompt and r.prompt ~= vim.NIL then
    vim.fn.setreg('"', r.prompt)
  end
end

local function rewind_to(client, sid, checkpoint, resolve)
  client:request(ext.rewind, { sessionId = sid, checkpoint = checkpoint, resolve = resolve }, function(err, r)
    if err then
      A().last_error = { method = ext.rewind, code = err.code, message = err.message }
      notify('rewind failed: ' .. str(err.message), vim.log.levels.ERROR)
      return
    end
    if not r.rewound and #(r.conflicts or {}) > 0 then
      local choices = { 'Overwrite my changes', 'Keep my changes', 'Cancel' }
      vim.ui.select(choices, {
        prompt = 'alisio: you changed these files since that point: ' .. table.concat(r.conflicts, ', '),
        kind = 'alisio.rewind.conflicts',
      }, function(c)
        if c == choices[1] then
          rewind_to(client, sid, checkpoint, 'overwrite')
        elseif c == choices[2] then
          rewind_to(client, sid, checkpoint, 'keep')
        else
          A().last_rewind = r
        end
      end)
      return
    end
    after_rewind(client, sid, r)
  end)
end

--- The checkpoint line of the picker.
function M.checkpoint_item(c)
  local prompt = (c.prompt and c.prompt ~= vim.NIL) and c.prompt:gsub('\n', ' ') or '(no prompt)'
  return string.format('%d · before "%s" · %s', c.checkpoint, prompt, c.createdAt)
end

--- Picks a checkpoint of `session_id` (the active ones, newest first) and rewinds to it.
function M.rewind(session_id)
  local sid = session_or_warn(session_id)
  local client = sid and A().client()
  if not client then
    return
  end
  client:request(ext.checkpoints, { sessionId = sid }, function(err, list)
    if err then
      notify('reading the checkpoints failed: ' .. str(err.message), vim.log.levels.ERROR)
      return
    end
    local active = {}
    for i = #(list or {}), 1, -1 do
      if list[i].active then
        active[#active + 1] = list[i]
      end
    end
    if #active == 0 then
      notify('this session has no checkpoint to rewind to')
      return
    end
    vim.ui.select(active, { prompt = 'alisio: rewind to before which message?', format_item = M.checkpoint_item, kind = 'alisio.rewind' }, function(c)
      if c then
        rewind_to(client, sid, c.checkpoint, 'ask')
      end
    end)
  end)
end

return M
