-- alisio.nvim: the client side of alisio-ls's custom methods (spec/interfaces.md §3.1).
--
-- Views: `:AlisioExplain` (alisio/contextExplain), `:AlisioSkills` (alisio/skillCatalog,
-- alisio/setSkillEnabled), `:AlisioChat` (alisio/runSession + alisio/sessionEvent, approvals
-- answering alisio/approve through vim.ui.select), `:AlisioReport` (alisio/contextReport).
-- Every view is a plain scratch buffer in a floating window (or a split for the chat), so it
-- works in any UI, headless included. The lines last shown by each view are kept in
-- `M.last[<view>]` for scripts and tests.
--
-- Rooms: `alisio.ext` (the custom methods), `alisio.render` (pure renderers), `alisio.chat`
-- (the chat and approvals); this file is the entry point and the floating views.

local M = {}
local ext = require('alisio.ext')
local render = require('alisio.render')
local chat = require('alisio.chat')
local str = render.str

M.name = 'alisio_ls'

---@type table<string, string[]>
M.last = {}

-- chat state: buffer -> {sessionId?, client_id, request_id?, running}
local report_views = {} -- sessionId -> {buf, win}

-- The renderers and the chat, under the names scripts already use.
M.columns = render.columns
M.render_explain = render.render_explain
M.render_skills = render.render_skills
M.render_report = render.render_report
M.render_event = render.render_event
M.on_session_event = chat.on_session_event
M.on_approve = chat.on_approve
M.chat = chat.chat
M.attach = chat.attach
M.sessions = chat.sessions
M.cancel = chat.cancel


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
-- Explain (spec/interfaces.md §1.1)


---@param opts? {uri?: string, host?: string, bufnr?: integer}
function M.explain(opts)
  opts = opts or {}
  local bufnr = opts.bufnr or vim.api.nvim_get_current_buf()
  local uri = opts.uri or vim.uri_from_bufnr(bufnr)
  with_client(bufnr, function(client)
    local params = { uri = uri, host = opts.host }
    request(client, ext.context_explain, params, bufnr, function(result)
      M.float('explain', 'Alisio: context', render.render_explain(result or {}))
    end)
  end)
end

-- ---------------------------------------------------------------------------------------------
-- Skill catalog (spec/interfaces.md §1.2)


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
    request(client, ext.skill_catalog, { uri = vim.uri_from_bufnr(bufnr) }, bufnr, function(catalog)
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
      local buf = M.float('skills', 'Alisio: skills', render.render_skills(catalog))
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
  request(client, ext.set_skill_enabled, { id = id, enabled = enabled }, bufnr, function(entry)
    notify(string.format('%s %s', id, (entry and entry.enabled) and 'enabled' or 'disabled'))
    pcall(vim.lsp.codelens.refresh, { bufnr = bufnr })
  end)
end

--- Flips the `enabled` flag of skill `id` (current state read from the catalog).
function M.toggle_skill(id, bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  with_client(bufnr, function(client)
    request(client, ext.skill_catalog, { uri = vim.uri_from_bufnr(bufnr) }, bufnr, function(catalog)
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
-- Trigger lab (spec/skills.md §10)

--- The quickfix items of `alisio/testSkillTriggers` results: one per prompt that went elsewhere,
--- at its line of the skill's evals/triggers.json (the first line holding the prompt's JSON text).
---@param results table[]
---@return table[]
function M.trigger_items(results)
  local items = {}
  local lines_of = {}
  for _, h in ipairs(results or {}) do
    for _, m in ipairs(h.misrouted or {}) do
      local dir = vim.fs.dirname(vim.uri_to_fname(m.uri))
      local evals = dir .. '/evals/triggers.json'
      if lines_of[evals] == nil then
        lines_of[evals] = vim.fn.filereadable(evals) == 1 and vim.fn.readfile(evals) or {}
      end
      local needle = vim.json.encode(m.prompt)
      local lnum = 1
      for i, l in ipairs(lines_of[evals]) do
        if l:find(needle, 1, true) then
          lnum = i
          break
        end
      end
      local routed = (m.routed == nil or m.routed == vim.NIL) and '(none)' or m.routed
      items[#items + 1] = {
        filename = evals,
        lnum = lnum,
        text = string.format('%s: %s: "%s" went to %s (expected %s)', h.host, m.skill, m.prompt, routed, m.expected),
        type = 'W',
      }
    end
  end
  return items
end

--- `:AlisioTestTriggers`: the offline lab of this buffer's SKILL.md (else every skill with an
--- eval file) into the quickfix list, opened when a prompt went elsewhere.
function M.test_triggers(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local name = vim.api.nvim_buf_get_name(bufnr)
  local params = name:match('/SKILL%.md$') and { uri = vim.uri_from_bufnr(bufnr) } or {}
  with_client(bufnr, function(client)
    request(client, ext.test_skill_triggers, params, bufnr, function(results)
      local items = M.trigger_items(results)
      vim.fn.setqflist({}, ' ', { title = 'alisio: skill triggers', items = items })
      M.last.triggers = items
      if #items > 0 then
        vim.cmd.copen()
      else
        notify('every prompt went where its eval file says')
      end
    end)
  end)
end

-- ---------------------------------------------------------------------------------------------
-- Context Report (spec/governor.md §6)

--- Whether the Context Report of `session_id` is on screen (the chat refreshes it live).
function M.report_shown(session_id)
  local view = report_views[session_id]
  return view ~= nil and vim.api.nvim_win_is_valid(view.win)
end


---@param session_id? string defaults to the session of the current chat buffer, else the last one
function M.report(session_id, bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  if not session_id or session_id == '' then
    session_id = chat.session_of(bufnr) or M.last_session
  end
  if not session_id then
    notify('no session: start one with :AlisioChat, or pass a session id', vim.log.levels.WARN)
    return
  end
  with_client(bufnr, function(client)
    request(client, ext.context_report, { sessionId = session_id }, bufnr, function(result)
      local old = report_views[session_id]
      if old and vim.api.nvim_win_is_valid(old.win) then
        vim.api.nvim_win_close(old.win, true)
      end
      local buf, win = M.float('report', 'Alisio: Context Report', render.render_report(result or {}))
      report_views[session_id] = { buf = buf, win = win }
    end)
  end)
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
  elseif command.command == 'alisio.showAuditSessions' then
    M.audit({ bufnr = bufnr })
  end
end

--- `:AlisioAudit [refresh]`: what the workspace's recent Claude Code and Codex sessions
--- received (alisio/auditSessions), in a float; `refresh` reads the session files again.
function M.audit(opts)
  opts = opts or {}
  local bufnr = opts.bufnr or vim.api.nvim_get_current_buf()
  with_client(bufnr, function(client)
    local params = opts.refresh and { refresh = true } or {}
    request(client, ext.audit_sessions, params, bufnr, function(result)
      M.float('audit', 'Alisio: recent sessions', render.render_audit(result))
    end)
  end)
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
