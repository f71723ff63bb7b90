-- git-checkpoint in Neovim: the turns of every agent in a buffer, a turn's
-- diff in a split, and undoing a turn, rewinding to before one or undoing
-- the last rewind, each with its plan shown first. It drives the product
-- only through its command line (`git checkpoint ... --json`, `git rewind
-- ... --json`); see :help checkpoint.
local cli = require('checkpoint.cli')
local log = require('checkpoint.log')
local rewind = require('checkpoint.rewind')

local M = {}

-- dir is the directory whose repository a command acts on: the log's own
-- when in a checkpoint buffer, else the current file's, else the working
-- directory. git -C finds the top of the tree from there.
local function dir()
  local st = log.current()
  if st then
    return st.dir
  end
  local name = vim.api.nvim_buf_get_name(0)
  if name ~= '' and not name:match('^%a+://') then
    local parent = vim.fn.fnamemodify(name, ':p:h')
    if vim.fn.isdirectory(parent) == 1 then
      return parent
    end
  end
  return vim.fn.getcwd()
end

-- log opens the log buffer (:CheckpointLog) of the working tree of the
-- current directory. `git checkpoint status --json` names its top, so
-- that one tree has one log whichever file it was opened from, and its
-- state directory, whose journal the log watches; outside a repository it
-- is the CLI's error that shows.
function M.log(opts)
  local st, err = cli.json(dir(), { 'checkpoint', 'status' })
  if not st then
    cli.report(err)
    return
  end
  log.open(st.top or dir(), cli.null(st.state_dir), opts and opts.mods or '')
end

-- target is the id a command acts on: the one given, else the entry under
-- the cursor of a log buffer; nil after saying why.
local function target(id, what)
  if id and id ~= '' then
    return id, nil
  end
  local st, e = log.current()
  if e then
    return e.id, e
  end
  local where = st and 'this line has no turn or checkpoint' or 'no turn under the cursor'
  cli.report({ message = where .. ': ' .. what .. ' acts on a turn of :CheckpointLog, or give its id (t3)', hints = {} })
  return nil
end

-- undo_turn takes out exactly what one turn changed and keeps the rest
-- (`git rewind --only tN`). On a checkpoint's line of the log, what that
-- checkpoint changed since the one before it (`--only kA..kB`).
function M.undo_turn(id)
  local t, e = target(id, ':CheckpointUndoTurn')
  if not t then
    return
  end
  if e and e.kind == 'checkpoint' then
    local prev = cli.null(e.record.previous)
    prev = type(prev) == 'string' and prev:match('^(%S+)') or nil
    if not prev then
      cli.report({ message = t .. ' is the first checkpoint: there is no change before it to undo', hints = {} })
      return
    end
    t = prev .. '..' .. t
  end
  rewind.start(dir(), { title = 'Undo ' .. t, args = { '--only', t } })
end

-- rewind makes the tree what it was before a turn (`git rewind tN`, the
-- turn's start), or at a checkpoint (`git rewind kN`).
function M.rewind(id)
  local t = target(id, ':CheckpointRewind')
  if not t then
    return
  end
  local title = t:match('^t%d+$') and ('Rewind to before ' .. t) or ('Rewind to ' .. t)
  rewind.start(dir(), { title = title, args = { t } })
end

-- undo_rewind goes back to the safety checkpoint of the last rewind
-- (`git rewind --undo`); undoing twice redoes.
function M.undo_rewind()
  rewind.start(dir(), { title = 'Undo the last rewind', args = { '--undo' } })
end

return M
