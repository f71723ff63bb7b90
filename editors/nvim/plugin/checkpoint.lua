-- The commands of git-checkpoint's Neovim plugin; the work is in
-- lua/checkpoint, loaded at the first command.
if vim.g.loaded_checkpoint then
  return
end
vim.g.loaded_checkpoint = true

local function api()
  return require('checkpoint')
end

vim.api.nvim_create_user_command('CheckpointLog', function(o)
  api().log({ mods = o.mods })
end, { nargs = 0, desc = 'git checkpoint log: the turns of every agent, newest first' })

vim.api.nvim_create_user_command('CheckpointUndoTurn', function(o)
  api().undo_turn(o.args)
end, { nargs = '?', desc = 'git rewind --only: take out one turn, keep the rest' })

vim.api.nvim_create_user_command('CheckpointRewind', function(o)
  api().rewind(o.args)
end, { nargs = '?', desc = 'git rewind: the tree as it was before a turn' })

vim.api.nvim_create_user_command('CheckpointUndoRewind', function()
  api().undo_rewind()
end, { nargs = 0, desc = 'git rewind --undo: undo the last rewind' })
