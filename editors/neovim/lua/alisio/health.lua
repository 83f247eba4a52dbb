-- :checkhealth alisio — the binary the client would start, its version, the Neovim version, the
-- clients attached and the workspace trust. ERROR when the binary is missing or does not run.
local M = {}

local NAME = 'alisio_ls'

local function server_cmd()
  local ok, cfg = pcall(function()
    return vim.lsp.config[NAME]
  end)
  if ok and type(cfg) == 'table' and type(cfg.cmd) == 'table' then
    return cfg.cmd, cfg
  end
  return nil, nil
end

local function check_neovim()
  local v = vim.version()
  local shown = string.format('%d.%d.%d', v.major, v.minor, v.patch)
  if vim.fn.has('nvim-0.11') == 1 then
    vim.health.ok('Neovim ' .. shown)
  else
    vim.health.error('Neovim ' .. shown .. ': alisio.nvim needs Neovim 0.11 or newer (vim.lsp.config)')
  end
end

local function check_binary(cmd)
  if not cmd then
    vim.health.error('vim.lsp.config.alisio_ls has no cmd: is editors/neovim on runtimepath?', {
      "vim.opt.runtimepath:append('/path/to/alisio-ls/editors/neovim')",
    })
    return
  end
  local bin = cmd[1]
  local exe = vim.fn.exepath(bin)
  if exe == '' then
    vim.health.error('alisio-ls binary not found: ' .. bin, {
      'Install it: cargo install --locked --path server (in a clone of alisio-ls)',
      'or set $ALISIO_LS_PATH to the binary',
    })
    return
  end
  local ok, res = pcall(function()
    return vim.system({ exe, '--version' }, { text = true }):wait(5000)
  end)
  if not ok or res.code ~= 0 then
    local why = ok and ((res.stderr or ''):gsub('%s+$', '')) or tostring(res)
    vim.health.error(string.format('%s --version failed: %s', exe, why ~= '' and why or ('exit ' .. tostring(res and res.code))))
    return
  end
  vim.health.ok(string.format('binary: %s (%s)', exe, (res.stdout or ''):gsub('%s+$', '')))
end

local function trusted_of(client)
  local s = client.settings and client.settings.alisio
  if type(s) == 'table' and s.trusted ~= nil then
    return s.trusted == true
  end
  local o = client.config and client.config.init_options
  return type(o) == 'table' and o.trusted == true
end

local function check_clients(cfg)
  local clients = vim.lsp.get_clients({ name = NAME })
  if #clients == 0 then
    local enabled = vim.lsp.is_enabled and vim.lsp.is_enabled(NAME)
    vim.health.warn('no alisio_ls client is running', {
      enabled == false and "enable it: vim.lsp.enable('alisio_ls')" or nil,
      'it attaches to Markdown files (AGENTS.md, SKILL.md, …) and .alisio/config.json',
    })
    local t = cfg and cfg.init_options and cfg.init_options.trusted == true
    vim.health.info('workspace trust (configured): ' .. (t and 'trusted' or 'not trusted'))
    return
  end
  for _, c in ipairs(clients) do
    local names = {}
    for buf in pairs(c.attached_buffers or {}) do
      names[#names + 1] = vim.fs.basename(vim.api.nvim_buf_get_name(buf))
    end
    table.sort(names)
    local shown = #names > 3 and (table.concat(names, ', ', 1, 3) .. ', …') or table.concat(names, ', ')
    vim.health.ok(string.format('client %d attached to %d buffer(s) (%s); root %s', c.id, #names, shown, tostring(c.root_dir or c.config.root_dir)))
    if trusted_of(c) then
      vim.health.ok('workspace trusted: project skills and .alisio/config.json are loaded')
    else
      vim.health.info('workspace not trusted: project skills and .alisio/config.json are not loaded', {
        ':AlisioTrust for this session, or init_options = { trusted = true } for workspaces you trust',
      })
    end
  end
end

function M.check()
  vim.health.start('alisio-ls')
  check_neovim()
  local cmd, cfg = server_cmd()
  check_binary(cmd)
  check_clients(cfg)
end

return M
