-- The one way the plugin reaches git-checkpoint: its command line, with
-- --json wherever it has it. Nothing here reads the store, the journal or
-- git's objects itself, so the plugin keeps working whatever their format.
local M = {}

-- The git program, for a user whose git is not on PATH.
local function git()
  return vim.g.checkpoint_git or 'git'
end

-- run starts `git -C dir ARGS...` and waits for it: code, stdout, stderr.
-- jobstart rather than system(): stdout and stderr must stay apart, since
-- with --json the document is on stdout and the text on stderr.
function M.run(dir, args)
  local cmd = { git(), '-C', dir }
  vim.list_extend(cmd, args)
  local out, err = {}, {}
  local ok, job = pcall(vim.fn.jobstart, cmd, {
    stdout_buffered = true,
    stderr_buffered = true,
    -- No pager and no colour: the output is read, not shown on a terminal.
    env = { GIT_PAGER = 'cat', PAGER = 'cat', NO_COLOR = '1' },
    on_stdout = function(_, data) out = data end,
    on_stderr = function(_, data) err = data end,
  })
  if not ok or job <= 0 then
    return { code = -1, stdout = '', stderr = 'cannot run ' .. git() .. ': is it installed and on PATH?' }
  end
  local code = vim.fn.jobwait({ job }, -1)[1]
  return { code = code, stdout = table.concat(out, '\n'), stderr = table.concat(err, '\n') }
end

-- decode reads a JSON document, or nil when the output is none.
local function decode(text)
  local ok, doc = pcall(vim.json.decode, text)
  if ok and type(doc) == 'table' then
    return doc
  end
  return nil
end

-- failure is the error of a run that did not succeed, as the person should
-- read it: the CLI's own message and hints from its JSON error document,
-- else its stderr.
local function failure(r)
  local doc = decode(r.stdout)
  if doc and type(doc.error) == 'table' then
    local e = doc.error
    return { code = e.code, message = e.message, hints = type(e.hints) == 'table' and e.hints or {}, data = e.data }
  end
  local text = vim.trim(r.stderr ~= '' and r.stderr or r.stdout)
  return { code = 'exit ' .. r.code, message = text ~= '' and text or ('git exited with status ' .. r.code), hints = {} }
end

-- with_json runs a command with --json, and returns its result, or nil
-- and the error it printed.
local function with_json(dir, args)
  local r = M.run(dir, vim.list_extend(vim.deepcopy(args), { '--json' }))
  if r.code ~= 0 then
    return nil, failure(r)
  end
  return r
end

-- json runs a command that takes --json and returns its document, or nil
-- and the error.
function M.json(dir, args)
  local r, err = with_json(dir, args)
  if not r then
    return nil, err
  end
  local doc = decode(r.stdout)
  if not doc then
    return nil, { code = 'output', message = 'git ' .. table.concat(args, ' ') .. ' --json printed no JSON document', hints = {} }
  end
  return doc
end

-- text runs a command whose output is text (a diff), with --json so that
-- an error still comes as the JSON error document.
function M.text(dir, args)
  local r, err = with_json(dir, args)
  if not r then
    return nil, err
  end
  return r.stdout
end

-- message is an error as lines: the message, then its hints.
function M.message(e)
  local lines = { 'git-checkpoint: ' .. (e.message or 'failed') }
  for _, h in ipairs(e.hints or {}) do
    table.insert(lines, 'hint: ' .. h)
  end
  return table.concat(lines, '\n')
end

-- report shows an error the way Neovim shows errors.
function M.report(e)
  vim.notify(M.message(e), vim.log.levels.ERROR)
end

-- null turns JSON's null (vim.NIL) into nil.
function M.null(v)
  if v == vim.NIL then
    return nil
  end
  return v
end

return M
