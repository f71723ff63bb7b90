-- The log buffer of :CheckpointLog and the diff split <CR> opens from it.
local cli = require('checkpoint.cli')
local entries = require('checkpoint.entries')

local M = {}

-- What each log buffer shows: its repository directory, the entry of each
-- line and the window its diffs go to. Keyed by buffer number; a wiped
-- buffer's state goes with it.
local logs = {}

local ns = vim.api.nvim_create_namespace('checkpoint')

local HELP = '<CR> diff  u undo turn  r rewind to before  U undo last rewind  R refresh  q close'

-- scratch makes or reuses the buffer of a name: no file, no swap file,
-- gone when hidden, read-only until filled.
local function scratch(name, filetype)
  local buf
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_get_name(b) == name then
      buf = b
    end
  end
  if not buf then
    buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(buf, name)
  end
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].swapfile = false
  vim.bo[buf].filetype = filetype
  return buf
end
M.scratch = scratch

-- fill replaces a buffer's lines, which the person cannot edit.
local function fill(buf, lines)
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].modified = false
end
M.fill = fill

-- render asks the CLI for the log and writes it into buf, keeping the
-- cursor on the entry it was on.
local function render(buf)
  local st = logs[buf]
  local doc, err = cli.json(st.dir, { 'checkpoint', 'log', '-n', tostring(vim.g.checkpoint_log_count or 50) })
  if not doc then
    fill(buf, { 'git checkpoint log  ' .. st.dir, '', cli.message(err) })
    st.entries = {}
    return
  end
  local sec, usec = vim.loop.gettimeofday()
  local list = entries.from(doc, sec + usec / 1e6)
  local head = { 'git checkpoint log  ' .. st.dir, HELP, '' }
  local lines = vim.list_extend(vim.deepcopy(head), entries.lines(list))
  if #list == 0 then
    table.insert(lines, 'no turns or checkpoints yet')
  end
  local win = vim.fn.bufwinid(buf)
  local keep = nil
  if win ~= -1 and st.entries then
    local e = st.entries[vim.api.nvim_win_get_cursor(win)[1]]
    keep = e and e.id
  end
  fill(buf, lines)
  st.entries = {}
  vim.api.nvim_buf_clear_namespace(buf, ns, 0, -1)
  vim.api.nvim_buf_add_highlight(buf, ns, 'Title', 0, 0, -1)
  vim.api.nvim_buf_add_highlight(buf, ns, 'Comment', 1, 0, -1)
  local target = #head + 1
  for i, e in ipairs(list) do
    local lnum = #head + i
    st.entries[lnum] = e
    local group = e.kind == 'turn' and 'Identifier' or 'Comment'
    vim.api.nvim_buf_add_highlight(buf, ns, group, lnum - 1, 0, #e.id)
    if e.kind == 'checkpoint' then
      vim.api.nvim_buf_add_highlight(buf, ns, 'Comment', lnum - 1, 0, -1)
    end
    if e.id == keep then
      target = lnum
    end
  end
  if win ~= -1 then
    vim.api.nvim_win_set_cursor(win, { math.min(target, #lines), 0 })
  end
end

-- watch renders buf again when the journal in state_dir changes: every
-- checkpoint, turn and rewind appends to it, whoever takes it (an agent's
-- hook, a terminal). The directory is watched, not the file, since a
-- prune replaces the file; a burst of writes renders once.
local function watch(buf, state_dir)
  local st = logs[buf]
  if st.watcher or not state_dir or vim.fn.isdirectory(state_dir) == 0 then
    return
  end
  local w, timer = vim.loop.new_fs_event(), vim.loop.new_timer()
  local ok = w and timer and w:start(state_dir, {}, function(err, name)
    if err or (name ~= 'journal.jsonl' and name ~= 'journal.jsonl.head') then
      return
    end
    timer:stop()
    timer:start(150, 0, vim.schedule_wrap(function()
      if logs[buf] and vim.api.nvim_buf_is_loaded(buf) then
        render(buf)
      end
    end))
  end)
  if ok then
    st.watcher, st.timer = w, timer
  end
end

-- forget drops the state of a wiped log buffer and stops its watcher.
local function forget(buf)
  local st = logs[buf]
  logs[buf] = nil
  if st and st.watcher then
    st.watcher:stop()
    st.watcher:close()
    st.timer:stop()
    st.timer:close()
  end
end

-- open shows the log of the working tree at dir in the current window, or
-- in a new one when mods (`vertical`, `tab`, ...) are given; state_dir is
-- where its journal is, to refresh the log when it changes.
function M.open(dir, state_dir, mods)
  if mods and mods ~= '' then
    vim.cmd(mods .. ' new')
  end
  local buf = scratch('checkpoint://log' .. dir, 'checkpointlog')
  vim.api.nvim_win_set_buf(0, buf)
  if not logs[buf] then
    logs[buf] = { dir = dir }
    vim.api.nvim_buf_attach(buf, false, { on_detach = function() forget(buf) end })
  end
  vim.wo.wrap = false
  vim.wo.cursorline = true
  local function map(lhs, fn)
    vim.keymap.set('n', lhs, fn, { buffer = buf, nowait = true, silent = true })
  end
  local api = require('checkpoint')
  map('<CR>', function() M.diff(buf) end)
  map('u', function() api.undo_turn() end)
  map('r', function() api.rewind() end)
  map('U', function() api.undo_rewind() end)
  map('R', function() render(buf) end)
  map('q', function() vim.cmd('bwipeout') end)
  render(buf)
  watch(buf, state_dir)
  vim.api.nvim_win_set_cursor(0, { math.min(4, vim.api.nvim_buf_line_count(buf)), 0 })
  return buf
end

-- refresh renders again every log of dir: after a rewind, which adds its
-- checkpoints.
function M.refresh(dir)
  for buf, st in pairs(logs) do
    if st.dir == dir and vim.api.nvim_buf_is_loaded(buf) then
      render(buf)
    end
  end
end

-- current is the log of the current buffer and the entry under the
-- cursor, or nil when the current buffer is no log.
function M.current()
  local buf = vim.api.nvim_get_current_buf()
  local st = logs[buf]
  if not st then
    return nil
  end
  return st, st.entries[vim.api.nvim_win_get_cursor(0)[1]]
end

-- diff_args are the CLI arguments of an entry's diff: a turn's from its
-- start checkpoint to its end (to the working tree while it runs: what it
-- changed so far), a checkpoint's from the one before it; nil and why when
-- there is nothing to compare. `diff tN` alone would compare the turn's
-- start with the tree now, later turns included.
local function diff_args(e)
  if e.kind == 'turn' then
    local t = e.record
    local from, to = cli.null(t.start), cli.null(t['end'])
    if not from then
      return nil, e.id .. ': its start checkpoint is no longer known (pruned), so its changes cannot be shown'
    end
    if t.running then
      return { 'checkpoint', 'diff', '--color=never', from }
    end
    if not to then
      return nil, e.id .. ': its end was never recorded, so what it changed is not known'
    end
    return { 'checkpoint', 'diff', '--color=never', from, to }
  end
  local prev = cli.null(e.record.previous)
  prev = type(prev) == 'string' and prev:match('^(%S+)') or nil
  if not prev then
    return nil, e.id .. ' is the first checkpoint: there is none before it to compare with'
  end
  return { 'checkpoint', 'diff', '--color=never', prev, e.id }
end

-- diff opens the diff of the entry under the cursor of log buf in a split
-- below it, the same split each time.
function M.diff(buf)
  local st = logs[buf]
  local e = st and st.entries[vim.api.nvim_win_get_cursor(0)[1]]
  if not e then
    vim.notify('no turn or checkpoint on this line', vim.log.levels.WARN)
    return
  end
  local args, why = diff_args(e)
  local lines
  if args then
    local text, err = cli.text(st.dir, args)
    if not text then
      cli.report(err)
      return
    end
    lines = vim.split(text, '\n', { plain = true })
    while #lines > 0 and lines[#lines] == '' do
      table.remove(lines)
    end
    if #lines == 0 then
      lines = { 'no changes' }
    end
  else
    lines = { why }
  end
  local title = entries.lines({ e })[1]
  table.insert(lines, 1, title)
  table.insert(lines, 2, '')
  local dbuf = scratch('checkpoint://diff' .. st.dir .. '/' .. e.id, 'diff')
  fill(dbuf, lines)
  if st.diffwin and vim.api.nvim_win_is_valid(st.diffwin) then
    vim.api.nvim_win_set_buf(st.diffwin, dbuf)
  else
    vim.cmd('belowright split')
    st.diffwin = vim.api.nvim_get_current_win()
    vim.api.nvim_win_set_buf(st.diffwin, dbuf)
    vim.cmd('wincmd p')
  end
  vim.keymap.set('n', 'q', '<cmd>close<CR>', { buffer = dbuf, silent = true })
end

return M
