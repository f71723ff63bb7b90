-- A rewind from the editor, as `git rewind` does it on a terminal: the
-- plan of a dry run first, shown in a split; the person's answer; then
-- exactly that plan applied by its id (`--plan`), so that a tree changed
-- in between is refused by the CLI (conflict.rewind_stale) rather than
-- rewound to something never shown.
local cli = require('checkpoint.cli')
local log = require('checkpoint.log')

local M = {}

-- plan_lines describes a dry run's plan for the person to read.
local function plan_lines(req, plan, extra)
  local args = vim.list_extend(vim.deepcopy(req.args), extra)
  local lines = { req.title .. ':  git rewind ' .. table.concat(args, ' '), '' }
  local target = plan.checkpoint or '?'
  local rev = cli.null(plan.reverse)
  if type(rev) == 'table' and type(rev.steps) == 'table' then
    local steps = {}
    for _, s in ipairs(rev.steps) do
      table.insert(steps, string.format('%s (%s..%s)', s.turn or '?', cli.null(s.from) or '?', cli.null(s.to) or '?'))
    end
    target = 'reverses ' .. table.concat(steps, ', ')
  else
    target = 'to ' .. target
  end
  table.insert(lines, string.format('plan %s  %s', plan.plan or '?', target))
  local files = plan.files or {}
  if #files == 0 then
    table.insert(lines, 'nothing to change: the files are already so')
  end
  for _, f in ipairs(files) do
    table.insert(lines, string.format('  %-6s  %-12s  %s', f.change or '', f.class or '', f.path or ''))
  end
  local left = plan.left or {}
  if #left > 0 then
    table.insert(lines, 'left as they are:')
    for _, l in ipairs(left) do
      table.insert(lines, string.format('  %s  (%s)', l.path or '', l.reason or ''))
    end
  end
  local head = cli.null(plan.head)
  if type(head) == 'table' and head.moves then
    table.insert(lines, string.format('HEAD moves back %d commit(s), to %s', head.commits or 0, (cli.null(head.to) or '?'):sub(1, 12)))
  end
  local refused = cli.null(plan.refused)
  if type(refused) == 'table' then
    table.insert(lines, '')
    table.insert(lines, 'refused now: ' .. (refused.message or refused.code or ''))
  end
  return lines
end

-- show puts lines in the plan split of dir, made or reused, and returns
-- its buffer.
local function show(dir, lines)
  local buf = log.scratch('checkpoint://plan' .. dir, 'checkpointplan')
  log.fill(buf, lines)
  local win = vim.fn.bufwinid(buf)
  if win == -1 then
    vim.cmd('botright split')
    win = vim.api.nvim_get_current_win()
    vim.api.nvim_win_set_buf(win, buf)
    vim.keymap.set('n', 'q', '<cmd>close<CR>', { buffer = buf, silent = true })
  end
  vim.api.nvim_win_set_height(win, math.min(#lines + 1, math.max(5, math.floor(vim.o.lines / 3))))
  return buf
end

-- close closes the plan split of dir, if it is open.
local function close(buf)
  local win = vim.fn.bufwinid(buf)
  if win ~= -1 and #vim.api.nvim_list_wins() > 1 then
    vim.api.nvim_win_close(win, true)
  end
end

-- apply applies plan id of req and reports what was done.
local function apply(dir, req, id, extra, buf)
  local args = vim.list_extend(vim.list_extend({ 'rewind' }, req.args), extra)
  vim.list_extend(args, { '--plan', id })
  local done, err = cli.json(dir, args)
  if not done then
    close(buf)
    cli.report(err)
    return
  end
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  table.insert(lines, '')
  local msg = string.format('applied plan %s; safety checkpoint %s (:CheckpointUndoRewind goes back)', done.plan or id, cli.null(done.safety) or '?')
  table.insert(lines, msg)
  if done.exact == false then
    local paths = {}
    for _, u in ipairs(cli.null(done.unexpected) or {}) do
      table.insert(paths, type(u) == 'table' and (u.path or '') or tostring(u))
    end
    table.insert(lines, 'not exact: ' .. table.concat(paths, ', '))
  end
  local resume = cli.null(done.resume)
  if type(resume) == 'table' and resume.command then
    table.insert(lines, 'continue the conversation as it was: ' .. resume.command)
  end
  log.fill(buf, lines)
  vim.notify(msg, vim.log.levels.INFO)
  -- Reload the buffers of the files the rewind wrote.
  vim.cmd('silent! checktime')
  log.refresh(dir)
end

-- ask shows the plan of `git rewind ARGS --dry-run` and applies it if the
-- person says so. req: {title, args}; extra: the `--outside` chosen.
local function ask(dir, req, extra)
  local args = vim.list_extend(vim.list_extend({ 'rewind', '--dry-run' }, req.args), extra)
  local plan, err = cli.json(dir, args)
  if not plan then
    cli.report(err)
    return
  end
  local buf = show(dir, plan_lines(req, plan, extra))
  vim.cmd('redraw')
  if #(plan.files or {}) == 0 and #extra == 0 then
    vim.notify(req.title .. ': nothing to change', vim.log.levels.INFO)
    return
  end
  local refused = cli.null(plan.refused)
  local choices, actions = {}, {}
  if type(refused) == 'table' and refused.code == 'conflict.outside_edits' and #extra == 0 then
    choices = { 'Keep the outside edits, apply the rest', 'Overwrite the outside edits too', 'Cancel' }
    actions = {
      function() ask(dir, req, { '--outside=keep' }) end,
      function() ask(dir, req, { '--outside=overwrite' }) end,
    }
  elseif type(refused) == 'table' then
    cli.report({ message = refused.message or refused.code, hints = {} })
    return
  else
    choices = { 'Apply plan ' .. plan.plan, 'Cancel' }
    actions = { function() apply(dir, req, plan.plan, extra, buf) end }
  end
  vim.ui.select(choices, { prompt = req.title .. ' (plan ' .. (plan.plan or '?') .. ')' }, function(_, idx)
    if idx and actions[idx] then
      actions[idx]()
    else
      close(buf)
      vim.notify(req.title .. ': cancelled, nothing changed', vim.log.levels.INFO)
    end
  end)
end

-- start runs the rewind of req in dir: plan, question, apply.
function M.start(dir, req)
  ask(dir, req, {})
end

return M
