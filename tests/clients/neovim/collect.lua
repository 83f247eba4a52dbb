-- Headless Neovim probe for the alisio.nvim client (tests/editors/neovim.rs drives it).
--
-- Opens ALISIO_TEST_FILE with the shipped lsp/alisio_ls.lua (enabled by init.lua), waits for the
-- client to attach, then performs the steps of ALISIO_TEST_STEPS (comma-separated):
--   diagnostics  wait until the buffer has at least one diagnostic (ALISIO_TEST_WAIT_CODE: one
--                with that code), then record them all
--   codelens     request textDocument/codeLens, resolve lenses without a command, record them,
--                and run the first lens's command (client-side commands of lsp/alisio_ls.lua)
--   explain      run :AlisioExplain and record the lines it shows
--   chat         run `:<ALISIO_TEST_RANGE>AlisioChat <ALISIO_TEST_PROMPT>`, answer the approval with the
--                vim.ui.select item labelled ALISIO_TEST_APPROVE, record the chat buffer
--                (ALISIO_TEST_REVIEW: edits of the proposed side first, see below)
--   report       run :AlisioReport (the chat's session) and record the lines it shows
--   attach       append an unsaved line (ALISIO_TEST_UNSAVED) to the buffer, run :AlisioAttach
--   sessions     run :AlisioSessions, pick the first session, record the chat buffer
--   skills       run :AlisioSkills and record the lines it shows
--   settle       wait 1.5 s and record the diagnostics then (e.g. none while untrusted)
--   trust        run :AlisioTrust (then a later `diagnostics` step sees the trusted results)
--   toggle       run `:AlisioToggleSkill <ALISIO_TEST_SKILL>` and wait for the answer
--   audit        run :AlisioAudit and record the lines it shows
--   changes      run :AlisioChanges (the chat's session) and record the lines it shows; then,
--                for each line number of ALISIO_TEST_UNDO (`;`-separated), press `u` there and
--                record the view again (changes_states) and the refusal, if any
--   rewind       write ALISIO_TEST_EDIT (`path=text`, the user's edit) first, run :AlisioRewind,
--                pick the checkpoint whose item starts with ALISIO_TEST_REWIND and answer the
--                conflict question with ALISIO_TEST_RESOLVE; record the prompts, the report and
--                the chat buffer
-- A `chat` step takes its prompt from ALISIO_TEST_PROMPTS (`|`-separated, one per chat step)
-- when set, and first writes the n-th text of ALISIO_TEST_SCRIPTS ({path, runs}) to its path.
--   triggers     run :AlisioTestTriggers and record the quickfix list it fills
-- and writes everything as JSON to ALISIO_TEST_OUT, then quits. Every wait has a timeout; a
-- timeout is recorded under "errors" instead of hanging.
local out_path = assert(os.getenv('ALISIO_TEST_OUT'), 'ALISIO_TEST_OUT')
local file = assert(os.getenv('ALISIO_TEST_FILE'), 'ALISIO_TEST_FILE')
local steps = vim.split(os.getenv('ALISIO_TEST_STEPS') or 'diagnostics', ',', { trimempty = true })
local wait_code = os.getenv('ALISIO_TEST_WAIT_CODE')
local timeout = tonumber(os.getenv('ALISIO_TEST_TIMEOUT_MS') or '15000')

local result = { errors = {}, steps = steps }
local chat_n = 0

local function finish()
  local f = assert(io.open(out_path, 'w'))
  f:write(vim.json.encode(result))
  f:close()
  vim.cmd('qall!')
end

local ok, err = pcall(function()
  require('alisio').last_error = nil
  vim.cmd.edit(vim.fn.fnameescape(file))
  local bufnr = vim.api.nvim_get_current_buf()
  result.filetype = vim.bo[bufnr].filetype
  result.enabled = vim.lsp.is_enabled and vim.lsp.is_enabled('alisio_ls') or nil

  local client
  local attached = vim.wait(timeout, function()
    client = vim.lsp.get_clients({ bufnr = bufnr, name = 'alisio_ls' })[1]
    return client ~= nil and client.initialized == true
  end, 20)
  result.attached = attached
  if not attached then
    table.insert(result.errors, 'client did not attach within ' .. timeout .. ' ms')
    return
  end
  result.client = {
    name = client.name,
    root_dir = client.root_dir,
    cmd = client.config.cmd,
    init_options = client.config.init_options,
    offset_encoding = client.offset_encoding,
    capabilities = client.server_capabilities,
  }

  for _, step in ipairs(steps) do
    if step == 'diagnostics' then
      local got = vim.wait(timeout, function()
        for _, d in ipairs(vim.diagnostic.get(bufnr)) do
          if not wait_code or d.code == wait_code then
            return true
          end
        end
        return false
      end, 20)
      if not got then
        table.insert(result.errors, 'no diagnostic' .. (wait_code and (' with code ' .. wait_code) or '') .. ' within ' .. timeout .. ' ms')
      end
      result.diagnostics = {}
      for _, d in ipairs(vim.diagnostic.get(bufnr)) do
        table.insert(result.diagnostics, {
          lnum = d.lnum, col = d.col, end_lnum = d.end_lnum, end_col = d.end_col,
          severity = d.severity, code = d.code, message = d.message, source = d.source,
        })
      end
    elseif step == 'codelens' then
      local resp = client:request_sync('textDocument/codeLens', { textDocument = vim.lsp.util.make_text_document_params(bufnr) }, timeout, bufnr)
      if not resp or resp.err then
        table.insert(result.errors, 'codeLens failed: ' .. vim.inspect(resp and resp.err or 'timeout'))
      else
        local lenses = {}
        for _, lens in ipairs(resp.result or {}) do
          if not lens.command and client:supports_method('codeLens/resolve') then
            local r = client:request_sync('codeLens/resolve', lens, timeout, bufnr)
            lens = (r and r.result) or lens
          end
          table.insert(lenses, lens)
        end
        result.codelenses = lenses
        local first = lenses[1]
        -- a lens whose command is empty is a label (spec/skills.md §6.5 "without a command")
        if first and first.command and first.command.command ~= '' then
          local view = first.command.command == 'alisio.explainContext' and 'explain' or 'skills'
          require('alisio').last[view] = nil
          client:exec_cmd(first.command, { bufnr = bufnr })
          local shown = vim.wait(timeout, function()
            return require('alisio').last[view] ~= nil or require('alisio').last_error ~= nil
          end, 20)
          result.lens_view = view
          result.lens_lines = require('alisio').last[view]
          if not shown then
            table.insert(result.errors, 'running the first code lens showed nothing')
          end
          pcall(vim.cmd.close)
        end
      end
    elseif step == 'explain' then
      require('alisio').last.explain = nil
      vim.api.nvim_set_current_buf(bufnr)
      vim.cmd('AlisioExplain')
      local shown = vim.wait(timeout, function()
        return require('alisio').last.explain ~= nil or require('alisio').last_error ~= nil
      end, 20)
      if not shown then
        table.insert(result.errors, ':AlisioExplain showed nothing within ' .. timeout .. ' ms')
      end
      result.explain_lines = require('alisio').last.explain
      -- the float is the current window; read it back to check what the user sees
      local win = vim.api.nvim_get_current_win()
      result.explain_float = vim.api.nvim_win_get_config(win).relative ~= ''
      result.explain_buffer = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), 0, -1, false)
      pcall(vim.cmd.close)
    elseif step == 'chat' then
      local alisio = require('alisio')
      alisio.last_result = nil
      chat_n = chat_n + 1
      local scripts = os.getenv('ALISIO_TEST_SCRIPTS')
      if scripts then
        local sc = vim.json.decode(scripts)
        local f = assert(io.open(sc.path, 'w'))
        f:write(sc.runs[chat_n])
        f:close()
      end
      local prompts = vim.split(os.getenv('ALISIO_TEST_PROMPTS') or '', '|', { trimempty = true })
      local answer = os.getenv('ALISIO_TEST_APPROVE') or 'Deny'
      result.approval_prompts = {}
      vim.ui.select = function(items, opts, on_choice)
        -- what the user sees while asked: the windows of the current tab (a diff split)
        local windows = {}
        for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
          local b = vim.api.nvim_win_get_buf(w)
          table.insert(windows, { name = vim.api.nvim_buf_get_name(b), diff = vim.wo[w].diff, lines = vim.api.nvim_buf_get_lines(b, 0, -1, false), modifiable = vim.bo[b].modifiable })
        end
        table.insert(result.approval_prompts, { prompt = opts.prompt, kind = opts.kind, items = vim.tbl_map(opts.format_item, items), windows = windows, tabs = #vim.api.nvim_list_tabpages() })
        -- ALISIO_TEST_REVIEW: what the user does in the proposed side before answering,
        -- `;`-separated: `reject:L` / `accept:L` (:AlisioHunkReject/Accept with the cursor on
        -- line L), `set:L:text` (line L typed over)
        local review = os.getenv('ALISIO_TEST_REVIEW')
        if review and #windows == 2 then
          local right = vim.api.nvim_tabpage_list_wins(0)[2]
          vim.api.nvim_set_current_win(right)
          for _, act in ipairs(vim.split(review, ';', { trimempty = true })) do
            local op, l, text = act:match('^(%a+):(%d+):?(.*)$')
            if op == 'set' then
              vim.api.nvim_buf_set_lines(0, tonumber(l) - 1, tonumber(l), false, { text })
            else
              vim.api.nvim_win_set_cursor(right, { tonumber(l), 0 })
              vim.cmd(op == 'reject' and 'AlisioHunkReject' or 'AlisioHunkAccept')
            end
          end
          result.reviewed_lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
        end
        for i, item in ipairs(items) do
          if opts.format_item(item) == answer then
            return on_choice(item, i)
          end
        end
        on_choice(nil, nil)
      end
      -- a later chat step asks again in the chat buffer (the same session)
      local chat_win
      for _, w in ipairs(vim.api.nvim_list_wins()) do
        if vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(w)):match('alisio://chat/') then
          chat_win = w
        end
      end
      if chat_n > 1 and chat_win then
        vim.api.nvim_set_current_win(chat_win)
      else
        vim.api.nvim_set_current_buf(bufnr)
      end
      local prompt = prompts[chat_n] or os.getenv('ALISIO_TEST_PROMPT') or 'hello'
      vim.cmd((os.getenv('ALISIO_TEST_RANGE') or '') .. 'AlisioChat ' .. prompt)
      local done = vim.wait(timeout, function()
        return alisio.last_result ~= nil or alisio.last_error ~= nil
      end, 20)
      if not done then
        table.insert(result.errors, ':AlisioChat got no result within ' .. timeout .. ' ms')
      end
      result.chat_result = alisio.last_result
      result.tabs_after_chat = #vim.api.nvim_list_tabpages()
      for _, b in ipairs(vim.api.nvim_list_bufs()) do
        if vim.api.nvim_buf_get_name(b):match('alisio://chat/') then
          result.chat_lines = vim.api.nvim_buf_get_lines(b, 0, -1, false)
        end
      end
    elseif step == 'attach' then
      -- an unsaved edit, then :AlisioAttach: the attachment carries the buffer as shown
      vim.api.nvim_set_current_buf(bufnr)
      vim.api.nvim_buf_set_lines(bufnr, -1, -1, false, { os.getenv('ALISIO_TEST_UNSAVED') or 'unsaved line' })
      vim.cmd('AlisioAttach')
      result.pending = vim.deepcopy(require('alisio.chat').pending)
    elseif step == 'sessions' then
      local alisio = require('alisio')
      alisio.opened_session = nil
      local select = vim.ui.select
      vim.ui.select = function(items, opts, on_choice)
        result.sessions_prompt = { prompt = opts.prompt, items = vim.tbl_map(opts.format_item, items) }
        on_choice(items[1], 1)
      end
      vim.cmd('AlisioSessions')
      vim.wait(timeout, function()
        return alisio.opened_session ~= nil or alisio.last_error ~= nil
      end, 20)
      vim.ui.select = select
      result.opened_session = alisio.opened_session
      for _, b in ipairs(vim.api.nvim_list_bufs()) do
        if vim.api.nvim_buf_get_name(b):match('alisio://chat/') then
          result.session_lines = vim.api.nvim_buf_get_lines(b, 0, -1, false)
        end
      end
    elseif step == 'settle' then
      vim.wait(1500, function()
        return false
      end, 50)
      result.settled_diagnostics = #vim.diagnostic.get(bufnr)
    elseif step == 'trust' then
      vim.api.nvim_set_current_buf(bufnr)
      vim.cmd('AlisioTrust')
    elseif step == 'skills' then
      local alisio = require('alisio')
      alisio.last.skills = nil
      vim.api.nvim_set_current_buf(bufnr)
      vim.cmd('AlisioSkills')
      vim.wait(timeout, function()
        return alisio.last.skills ~= nil or alisio.last_error ~= nil
      end, 20)
      result.skills_lines = alisio.last.skills
      pcall(vim.cmd.close)
    elseif step == 'toggle' then
      local alisio = require('alisio')
      local messages = {}
      local notify = vim.notify
      vim.notify = function(msg)
        table.insert(messages, msg)
      end
      vim.api.nvim_set_current_buf(bufnr)
      vim.cmd('AlisioToggleSkill ' .. (os.getenv('ALISIO_TEST_SKILL') or ''))
      vim.wait(timeout, function()
        return #messages > 0 or alisio.last_error ~= nil
      end, 20)
      vim.notify = notify
      result.toggle_messages = messages
    elseif step == 'audit' then
      local alisio = require('alisio')
      alisio.last.audit = nil
      vim.api.nvim_set_current_buf(bufnr)
      -- the background audit may still run: ask again until it has ended
      local t0 = vim.uv.now()
      repeat
        alisio.last.audit = nil
        vim.cmd('AlisioAudit')
        vim.wait(timeout, function()
          return alisio.last.audit ~= nil or alisio.last_error ~= nil
        end, 20)
        pcall(vim.cmd.close)
      until not (alisio.last.audit and alisio.last.audit[1] == 'Auditing recent sessions…') or vim.uv.now() - t0 > timeout
      result.audit_lines = alisio.last.audit
    elseif step == 'changes' then
      local alisio = require('alisio')
      alisio.last.changes = nil
      vim.cmd('AlisioChanges')
      local function shown()
        return vim.wait(timeout, function()
          return alisio.last.changes ~= nil or alisio.last_error ~= nil
        end, 20)
      end
      if not shown() then
        table.insert(result.errors, ':AlisioChanges showed nothing within ' .. timeout .. ' ms')
      end
      result.changes_states = { alisio.last.changes }
      result.changes_errors = {}
      for _, l in ipairs(vim.split(os.getenv('ALISIO_TEST_UNDO') or '', ';', { trimempty = true })) do
        local buf = vim.api.nvim_get_current_buf()
        vim.api.nvim_win_set_cursor(0, { tonumber(l), 0 })
        vim.api.nvim_feedkeys('u', 'x', false)
        if not shown() then
          table.insert(result.errors, 'undo at line ' .. l .. ' showed nothing')
        end
        table.insert(result.changes_states, alisio.last.changes)
        table.insert(result.changes_errors, alisio.changes_error or vim.NIL)
        result.changes_buffer = vim.api.nvim_buf_get_name(buf)
      end
    elseif step == 'rewind' then
      local alisio = require('alisio')
      local edit = os.getenv('ALISIO_TEST_EDIT')
      if edit then
        local path, text = edit:match('^([^=]+)=(.*)$')
        local f = assert(io.open(path, 'w'))
        f:write(text)
        f:close()
      end
      result.rewind_prompts = {}
      vim.ui.select = function(items, opts, on_choice)
        local shown = vim.tbl_map(opts.format_item or tostring, items)
        table.insert(result.rewind_prompts, { prompt = opts.prompt, kind = opts.kind, items = shown })
        local want = opts.kind == 'alisio.rewind' and (os.getenv('ALISIO_TEST_REWIND') or '1') or (os.getenv('ALISIO_TEST_RESOLVE') or 'Cancel')
        for i, label in ipairs(shown) do
          if label:sub(1, #want) == want then
            return on_choice(items[i], i)
          end
        end
        on_choice(nil, nil)
      end
      alisio.last_rewind = nil
      alisio.opened_session = nil
      vim.cmd('AlisioRewind')
      local done = vim.wait(timeout, function()
        return (alisio.last_rewind ~= nil and (alisio.opened_session ~= nil or not alisio.last_rewind.rewound)) or alisio.last_error ~= nil
      end, 20)
      if not done then
        table.insert(result.errors, ':AlisioRewind did not finish within ' .. timeout .. ' ms')
      end
      result.rewind = alisio.last_rewind
      for _, b in ipairs(vim.api.nvim_list_bufs()) do
        if vim.api.nvim_buf_get_name(b):match('alisio://chat/') then
          result.chat_lines_after_rewind = vim.api.nvim_buf_get_lines(b, 0, -1, false)
        end
      end
    elseif step == 'triggers' then
      local alisio = require('alisio')
      alisio.last.triggers = nil
      vim.api.nvim_set_current_buf(bufnr)
      vim.cmd('AlisioTestTriggers')
      vim.wait(timeout, function()
        return alisio.last.triggers ~= nil or alisio.last_error ~= nil
      end, 20)
      local qf = vim.fn.getqflist({ title = 1, items = 1 })
      result.qf_title = qf.title
      result.qf = {}
      for _, it in ipairs(qf.items) do
        table.insert(result.qf, { file = vim.api.nvim_buf_get_name(it.bufnr), lnum = it.lnum, text = it.text })
      end
      result.qf_open = vim.fn.getqflist({ winid = 1 }).winid ~= 0
    elseif step == 'report' then
      local alisio = require('alisio')
      alisio.last.report = nil
      vim.cmd('AlisioReport')
      local shown = vim.wait(timeout, function()
        return alisio.last.report ~= nil or alisio.last_error ~= nil
      end, 20)
      if not shown then
        table.insert(result.errors, ':AlisioReport showed nothing within ' .. timeout .. ' ms')
      end
      result.report_lines = alisio.last.report
      result.report_float = vim.api.nvim_win_get_config(vim.api.nvim_get_current_win()).relative ~= ''
    end
  end
end)
if not ok then
  table.insert(result.errors, 'lua error: ' .. tostring(err))
end
local last_error = package.loaded['alisio'] and package.loaded['alisio'].last_error
if last_error then
  table.insert(result.errors, 'request error: ' .. vim.inspect(last_error))
end
finish()
