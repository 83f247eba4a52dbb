-- :AlisioInit — "Create or update AGENTS.md" (spec/instructions.md §9): the proposal of
-- alisio/initAgentsMd shown as a diff (a new tab: the file on disk beside the proposal, both in
-- diff mode), then written by the server only when the user picks "Write" (the sha256 of what
-- was shown guards the write). `M.last` keeps the proposal and the outcome for scripts and tests.
local M = {}

M.last = nil

local function notify(msg, level)
  vim.notify('alisio: ' .. msg, level or vim.log.levels.INFO)
end

local function scratch(name, text)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].bufhidden = 'wipe'
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(text, '\n', { plain = true }))
  vim.bo[buf].modifiable = false
  vim.bo[buf].filetype = 'markdown'
  pcall(vim.api.nvim_buf_set_name, buf, name)
  return buf
end

local function show_diff(p)
  vim.cmd('tabnew')
  local left = scratch('alisio://AGENTS.md (on disk)', p.current or '')
  vim.api.nvim_win_set_buf(0, left)
  vim.cmd('diffthis')
  vim.cmd('vsplit')
  local right = scratch('alisio://AGENTS.md (proposed)', p.proposed)
  vim.api.nvim_win_set_buf(0, right)
  vim.cmd('diffthis')
end

---@param bufnr? integer
function M.run(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local client = require('alisio').client(bufnr)
  if not client then
    return notify('alisio-ls is not running for this buffer (vim.lsp.enable("alisio_ls"))', vim.log.levels.WARN)
  end
  local root = client.root_dir or vim.fn.getcwd()
  local uri = vim.uri_from_fname(root)
  local function req(params, cb)
    client:request(require('alisio.ext').init_agents_md, params, function(err, result)
      if err then
        M.last = { error = err.message }
        return notify('Create or update AGENTS.md: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      end
      cb(result)
    end, bufnr)
  end
  req({ uri = uri }, function(p)
    M.last = { proposal = p, written = false }
    if not p.changed then
      return notify('AGENTS.md is up to date; nothing to write')
    end
    show_diff(p)
    local prompt = p.exists and 'Update the project facts section of AGENTS.md as shown?' or 'Create AGENTS.md as shown?'
    vim.ui.select({ 'Write', 'Cancel' }, { prompt = prompt }, function(choice)
      if choice ~= 'Write' then
        M.last.cancelled = true
        return
      end
      req({ uri = uri, write = true, sha256 = p.sha256 }, function(w)
        M.last.written = w.written
        if w.written then
          pcall(vim.cmd, 'tabclose')
          vim.cmd('checktime')
          notify('AGENTS.md ' .. (p.exists and 'updated' or 'created'))
        end
      end)
    end)
  end)
end

return M
