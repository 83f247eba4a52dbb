-- alisio-ls: language server for AGENTS.md instruction files and Agent Skills (SKILL.md).
--
-- Neovim >= 0.11. Put this directory (editors/neovim) on 'runtimepath', then:
--
--   vim.lsp.enable('alisio_ls')
--
-- The workspace is untrusted by default: project skills and `.alisio/config.json` are not
-- loaded (instruction files still are). Trust a workspace you know with:
--
--   vim.lsp.config('alisio_ls', { init_options = { trusted = true } })
--
-- or, for the running server only, `:AlisioTrust`. See editors/neovim/README.md.

---@param name string
---@return string
local function server_binary(name)
  local from_env = vim.env.ALISIO_LS_PATH
  if from_env and from_env ~= '' then
    return vim.fs.normalize(from_env)
  end
  return name
end

---@type vim.lsp.Config
return {
  cmd = { server_binary('alisio-ls'), 'serve', '--stdio' },
  filetypes = { 'markdown', 'json', 'jsonc' },
  -- Attach only to the files the server serves: Markdown (instruction files, SKILL.md and the
  -- files they link) and, among JSON files, only `.alisio/config.json`. The root is the nearest
  -- ancestor holding `.git` (none: single-file mode), as with root_markers = { '.git' }.
  root_dir = function(bufnr, on_dir)
    local ft = vim.bo[bufnr].filetype
    if ft == 'json' or ft == 'jsonc' then
      local name = vim.api.nvim_buf_get_name(bufnr)
      if not name:match('[/\\]%.alisio[/\\]config%.json$') then
        return
      end
    end
    on_dir(vim.fs.root(bufnr, { '.git' }))
  end,
  -- The shapes are those of spec/interfaces.md §3 (initialization options). Keys left out take the
  -- defaults of the configuration files; `trusted` must be granted explicitly.
  init_options = {
    trusted = false,
    host = 'alisio',
    profile = 'alisio',
    watcher = 'auto',
    codeLens = { instructionsOnEveryFile = false },
  },
  -- The commands the server's code lenses carry are run client-side so that their results are
  -- shown (a float) instead of being sent back to the server and discarded.
  commands = {
    ['alisio.explainContext'] = function(command, ctx)
      require('alisio').lens_command(command, ctx)
    end,
    ['alisio.showSkill'] = function(command, ctx)
      require('alisio').lens_command(command, ctx)
    end,
    ['alisio.toggleSkill'] = function(command, ctx)
      require('alisio').lens_command(command, ctx)
    end,
    ['alisio.showContextReport'] = function(command, ctx)
      require('alisio').lens_command(command, ctx)
    end,
    ['alisio.showAuditSessions'] = function(command, ctx)
      require('alisio').lens_command(command, ctx)
    end,
  },
  handlers = {
    [require('alisio.ext').session_event] = function(err, params, ctx)
      return require('alisio').on_session_event(err, params, ctx)
    end,
    [require('alisio.ext').approve] = function(err, params, ctx)
      return require('alisio').on_approve(err, params, ctx)
    end,
  },
  on_attach = function(client, bufnr)
    require('alisio').on_attach(client, bufnr)
  end,
}
