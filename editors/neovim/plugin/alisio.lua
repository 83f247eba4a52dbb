-- User commands of alisio.nvim. The language server itself is configured by lsp/alisio_ls.lua
-- and started with vim.lsp.enable('alisio_ls').
if vim.g.loaded_alisio then
  return
end
vim.g.loaded_alisio = true

local cmd = vim.api.nvim_create_user_command

cmd('AlisioExplain', function()
  require('alisio').explain()
end, { desc = 'alisio: which instruction files apply to this buffer (alisio/contextExplain)' })

cmd('AlisioSkills', function()
  require('alisio').skills()
end, { desc = 'alisio: the effective skill catalog (alisio/skillCatalog)' })

cmd('AlisioToggleSkill', function(o)
  require('alisio').toggle_skill(o.args)
end, { nargs = 1, desc = 'alisio: enable or disable a skill by id (alisio/setSkillEnabled)' })

cmd('AlisioTestTriggers', function()
  require('alisio').test_triggers()
end, { desc = 'alisio: the offline trigger lab of this SKILL.md into the quickfix list (alisio/testSkillTriggers)' })

cmd('AlisioChat', function(o)
  require('alisio').chat(o.args, o.range > 0 and { line1 = o.line1, line2 = o.line2 } or nil)
end, { nargs = '*', range = true, desc = 'alisio: ask the agent in a chat buffer (alisio/runSession); a range attaches those lines' })

cmd('AlisioAttach', function(o)
  local buf = o.args ~= '' and vim.fn.bufnr(o.args) or 0
  if buf == -1 then
    vim.notify('alisio: no buffer ' .. o.args, vim.log.levels.WARN)
    return
  end
  require('alisio').attach(buf, o.range > 0 and o.line1 or nil, o.range > 0 and o.line2 or nil)
end, { nargs = '?', range = true, complete = 'buffer', desc = 'alisio: attach a buffer (or a range of it) to the next prompt' })

cmd('AlisioSessions', function()
  require('alisio').sessions()
end, { desc = 'alisio: earlier sessions of the workspace; open one to continue it (alisio/listSessions)' })

cmd('AlisioChanges', function(o)
  require('alisio.changes').open(o.args ~= '' and o.args or nil)
end, { nargs = '?', desc = 'alisio: the files a session changed; u undoes a file or hunk, K keeps a file (alisio/sessionChanges)' })

cmd('AlisioRewind', function(o)
  require('alisio.changes').rewind(o.args ~= '' and o.args or nil)
end, { nargs = '?', desc = 'alisio: rewind files and conversation to before one of your messages (alisio/rewind)' })

cmd('AlisioAudit', function(o)
  require('alisio').audit({ refresh = o.args == 'refresh' })
end, { nargs = '?', complete = function()
  return { 'refresh' }
end, desc = 'alisio: what the recent Claude Code and Codex sessions of this workspace received (alisio/auditSessions)' })

cmd('AlisioCancel', function()
  require('alisio').cancel()
end, { desc = 'alisio: cancel the running agent session' })

cmd('AlisioReport', function(o)
  require('alisio').report(o.args ~= '' and o.args or nil)
end, { nargs = '?', desc = 'alisio: Context Report of a session (alisio/contextReport)' })

cmd('AlisioTrust', function()
  require('alisio').trust()
end, { desc = 'alisio: trust this workspace for the running server' })

cmd('AlisioInit', function()
  require('alisio.init_agents').run()
end, { desc = 'alisio: create or update the root AGENTS.md, shown as a diff first (alisio/initAgentsMd)' })
