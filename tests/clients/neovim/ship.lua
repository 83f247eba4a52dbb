-- Probe for tests/editors/neovim_ship.rs: opens the files of $ALISIO_TEST_FILES (':'-separated,
-- the last one is waited on until the alisio_ls client attaches), then runs $ALISIO_TEST_STEP
-- (health | attach | init) and writes what the user would see as JSON to $ALISIO_TEST_OUT.
local out = {}
local files = vim.split(vim.env.ALISIO_TEST_FILES, ':', { plain = true })
local bufs = {}
for _, f in ipairs(files) do
  vim.cmd.edit(vim.fn.fnameescape(f))
  bufs[#bufs + 1] = vim.api.nvim_get_current_buf()
end
local last = bufs[#bufs]
local function attached(buf)
  return #vim.lsp.get_clients({ name = 'alisio_ls', bufnr = buf }) > 0
end
local function finish()
  local fh = assert(io.open(vim.env.ALISIO_TEST_OUT, 'w'))
  fh:write(vim.json.encode(out))
  fh:close()
  vim.cmd('qa!')
end
local step = vim.env.ALISIO_TEST_STEP
out.attached = vim.wait(10000, function()
  return attached(last)
end, 20) and true or false
if step == 'health' then
  vim.cmd('checkhealth alisio')
  out.health = vim.api.nvim_buf_get_lines(0, 0, -1, false)
  finish()
elseif step == 'attach' then
  out.per_file = {}
  for i, b in ipairs(bufs) do
    out.per_file[i] = { name = vim.fs.basename(vim.api.nvim_buf_get_name(b)), filetype = vim.bo[b].filetype, attached = attached(b) }
  end
  finish()
elseif step == 'spark' then
  local report = vim.json.decode(vim.env.ALISIO_TEST_REPORT)
  out.lines = require('alisio').render_report(report)
  out.spark = require('alisio.spark').line({ 0, 1, 2, 3, 4, 5, 6, 7 })
  out.wide = require('alisio.spark').line({ 1, 1, 1, 1, 8, 8 }, 3)
  finish()
elseif step == 'init' then
  vim.ui.select = function(items, _, on_choice)
    out.choices = items
    on_choice('Write')
  end
  vim.cmd('AlisioInit')
  local init = require('alisio.init_agents')
  vim.wait(10000, function()
    return init.last ~= nil and (init.last.written or init.last.error ~= nil)
  end, 20)
  out.last = init.last
  out.tabs = #vim.api.nvim_list_tabpages()
  finish()
end
