-- Drives the Neovim plugin as a person would, for TestEditorNeovim: the
-- commands typed, <CR> pressed, the plan's question answered (by feeding
-- keys, which the real prompt reads). It checks nothing itself: it writes
-- what each buffer showed, and the messages, as JSON to $NVIM_DRIVE_OUT,
-- and the Go test judges them and the files on disk. $NVIM_DRIVE_SCENE
-- picks the scene.
local out = {}

local function keys(s)
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(s, true, false, true), 'mx', false)
end

-- lines of the buffer of the current window, with its name.
local function shown()
  return { name = vim.api.nvim_buf_get_name(0), lines = vim.api.nvim_buf_get_lines(0, 0, -1, false) }
end

-- to_log goes to the log's window and puts the cursor on the line of id.
local function to_log(id)
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(win)):match('^checkpoint://log') then
      vim.api.nvim_set_current_win(win)
    end
  end
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  if vim.fn.search('^' .. id .. ' ', 'W') == 0 then
    error('no line of ' .. id .. ' in the log')
  end
end

-- plan is the plan split's lines, wherever the cursor is; nil when it is
-- closed.
local function plan()
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_get_name(buf):match('^checkpoint://plan') then
      return vim.api.nvim_buf_get_lines(buf, 0, -1, false)
    end
  end
  return nil
end

local scenes = {}

-- The log, both turns' diffs, a cancelled undo, an error, then the undo
-- of the first turn confirmed.
function scenes.undo_turn()
  vim.cmd('CheckpointLog')
  out.log = shown()
  -- A checkpoint taken elsewhere shows up in the open log by itself.
  vim.fn.system({ 'git', 'checkpoint', '-q', '-m', 'taken in a terminal' })
  out.refreshed = vim.wait(10000, function()
    return vim.fn.search('taken in a terminal', 'nw') > 0
  end, 20)
  to_log('t2')
  keys('<CR>')
  vim.cmd('wincmd j')
  out.diff_t2 = shown()
  to_log('t1')
  keys('<CR>')
  vim.cmd('wincmd j')
  out.diff_t1 = shown()
  out.windows = #vim.api.nvim_list_wins()

  to_log('t1')
  keys(':CheckpointUndoTurn<CR>2<CR>')
  out.cancelled_plan = plan()
  out.hello_after_cancel = vim.fn.filereadable('hello.txt')

  keys(':CheckpointUndoTurn t99<CR>')

  -- A file of the plan changes while the question is asked (a.txt becomes
  -- executable, which the turn's reversal keeps): the plan shown is stale,
  -- and applying it must be refused.
  local select = vim.ui.select
  vim.ui.select = function(...)
    vim.ui.select = select
    vim.fn.setfperm('a.txt', 'rwxr-xr-x')
    return select(...)
  end
  to_log('t1')
  keys(':CheckpointUndoTurn<CR>1<CR>')
  out.after_stale = { a = vim.fn.readfile('a.txt'), hello = vim.fn.filereadable('hello.txt') }
  vim.fn.setfperm('a.txt', 'rw-r--r--')

  to_log('t1')
  keys(':CheckpointUndoTurn<CR>1<CR>')
  out.plan = plan()
  to_log('t1')
  out.log_after = shown()
  -- The rewind's own checkpoint, compared with the one before it.
  vim.fn.search('after rewind to t1', 'w')
  keys('<CR>')
  vim.cmd('wincmd j')
  out.diff_rewind = shown()
end

-- The last rewind undone, confirmed, from no log at all.
function scenes.undo_rewind()
  keys(':CheckpointUndoRewind<CR>1<CR>')
  out.plan = plan()
end

-- A rewind to before t2 over a person's edit: keep it, then apply.
function scenes.rewind_outside()
  keys(':CheckpointRewind t2<CR>1<CR>1<CR>')
  out.plan = plan()
end

local ok, err = pcall(scenes[os.getenv('NVIM_DRIVE_SCENE')])
if not ok then
  out.error = tostring(err)
end
out.messages = vim.fn.execute('messages')
local f = assert(io.open(os.getenv('NVIM_DRIVE_OUT'), 'w'))
f:write(vim.json.encode(out))
f:close()
vim.cmd('qa!')
