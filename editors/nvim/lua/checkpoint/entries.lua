-- The log as a list of entries: the turns of `git checkpoint log --json`
-- and the checkpoints taken between them, newest first, each with the text
-- of its line. Pure functions of the document and the clock, so that what
-- the buffer shows follows from what the CLI printed.
local cli = require('checkpoint.cli')

local M = {}

-- days_from_civil counts the days from 1970-01-01 to a date of the
-- proleptic Gregorian calendar (H. Hinnant's algorithm): os.time reads a
-- date as local time, and the CLI's times are UTC.
local function days_from_civil(y, m, d)
  if m <= 2 then
    y = y - 1
  end
  local era = math.floor(y / 400)
  local yoe = y - era * 400
  local mp = (m + 9) % 12
  local doy = math.floor((153 * mp + 2) / 5) + d - 1
  local doe = yoe * 365 + math.floor(yoe / 4) - math.floor(yoe / 100) + doy
  return era * 146097 + doe - 719468
end

-- seconds reads an RFC 3339 time (`2026-01-02T03:04:05.123Z`, or with an
-- offset) as seconds since the epoch, fraction included; nil if it is none.
function M.seconds(s)
  if type(s) ~= 'string' then
    return nil
  end
  local y, mo, d, h, mi, sec, rest = s:match('^(%d+)-(%d+)-(%d+)T(%d+):(%d+):(%d+)(.*)$')
  if not y then
    return nil
  end
  local t = days_from_civil(tonumber(y), tonumber(mo), tonumber(d)) * 86400 + tonumber(h) * 3600 + tonumber(mi) * 60 + tonumber(sec)
  local frac = rest:match('^%.(%d+)')
  if frac then
    t = t + tonumber('0.' .. frac)
    rest = rest:sub(#frac + 2)
  end
  local sign, oh, om = rest:match('^([+-])(%d+):(%d+)$')
  if sign then
    local off = tonumber(oh) * 3600 + tonumber(om) * 60
    t = sign == '+' and t - off or t + off
  end
  return t
end

-- ago says how long before now t was, as the CLI says it (`5s ago`, `3m
-- ago`, `2h ago` up to two days, then days).
function M.ago(t, now)
  if not t then
    return '?'
  end
  local d = now - t
  if d < 0 then
    return 'now'
  elseif d < 60 then
    return string.format('%ds ago', math.floor(d))
  elseif d < 3600 then
    return string.format('%dm ago', math.floor(d / 60))
  elseif d < 48 * 3600 then
    return string.format('%dh ago', math.floor(d / 3600))
  end
  return string.format('%dd ago', math.floor(d / 86400))
end

-- changes prints counts as `~2 +1 -0`, or `?` when they are not known.
function M.changes(c)
  c = cli.null(c)
  if type(c) ~= 'table' then
    return '?'
  end
  return string.format('~%d +%d -%d', c.modified or 0, c.added or 0, c.deleted or 0)
end

-- first_line is a prompt's or label's first line.
local function first_line(s)
  s = cli.null(s)
  if type(s) ~= 'string' then
    return ''
  end
  return (s:match('^[^\n]*'))
end

-- span is a turn's checkpoints, as the CLI's log prints them: `k7..k9`,
-- `k7..running`, `?` for one never recorded.
local function span(turn)
  local start = cli.null(turn.start) or '?'
  local finish = cli.null(turn['end'])
  if turn.running then
    finish = 'running'
  end
  return start .. '..' .. (finish or '?')
end

-- what a checkpoint outside turns is, in the agent column.
local function kind(c)
  if cli.null(c.by) == 'model' then
    return 'rewind by model'
  end
  return c.reason or ''
end

-- From turns a log document into its entries, newest first. Each entry is
-- {kind = 'turn' | 'checkpoint', id, record, cols = {...}}, where record is
-- the turn or checkpoint as the CLI gave it.
function M.from(doc, now)
  local list = {}
  for _, t in ipairs(doc.turns or {}) do
    local at = M.seconds(cli.null(t.started_at))
    table.insert(list, {
      kind = 'turn', id = t.id, record = t, at = at,
      cols = { t.id, M.ago(at, now), t.agent or '', M.changes(t.changes), span(t), first_line(t.prompt) },
    })
  end
  for _, c in ipairs(doc.checkpoints or {}) do
    local at = M.seconds(cli.null(c.at))
    local text = first_line(c.label)
    if text == '' then
      text = first_line(c.prompt)
    end
    table.insert(list, {
      kind = 'checkpoint', id = c.id, record = c, at = at,
      cols = { c.id, M.ago(at, now), kind(c), M.changes(c.changes), c.id, text },
    })
  end
  -- Newest first by time; a turn above a checkpoint of the same moment, as
  -- the turn started at or after it. The CLI's order breaks the rest.
  for i, e in ipairs(list) do
    e.order = i
  end
  table.sort(list, function(a, b)
    local ta, tb = a.at or 0, b.at or 0
    if ta ~= tb then
      return ta > tb
    end
    if a.kind ~= b.kind then
      return a.kind == 'turn'
    end
    return a.order < b.order
  end)
  return list
end

-- lines aligns the entries' columns into lines.
function M.lines(list)
  local width = {}
  for _, e in ipairs(list) do
    for i = 1, #e.cols - 1 do
      width[i] = math.max(width[i] or 0, vim.fn.strdisplaywidth(e.cols[i]))
    end
  end
  local out = {}
  for _, e in ipairs(list) do
    local parts = {}
    for i, col in ipairs(e.cols) do
      if i < #e.cols then
        col = col .. string.rep(' ', width[i] - vim.fn.strdisplaywidth(col))
      end
      table.insert(parts, col)
    end
    table.insert(out, (table.concat(parts, '  '):gsub('%s+$', '')))
  end
  return out
end

return M
