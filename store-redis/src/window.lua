-- acd: stacked fixed-window decisions, each atomic and all or none; several
-- decisions of one namespace may share one call (they are decided in
-- order, exactly as if sent one after the other).
--
-- The Lua mirror of acd_core::limit::decide_stack over FixedWindow, with
-- one integer counter per (limit, subject, window): the key name ends with
-- the window's end (Unix ms), so a key of an older window is never read
-- and a new window needs no reset. A differential test
-- (store-redis/tests/differential.rs) runs random timelines through both
-- and requires identical answers.
--
-- KEYS[1..k]  the distinct window keys of every decision (one hash tag:
--             one slot)
-- ARGV[1]     grace, ms added to every TTL (covers clock skew between callers)
-- ARGV[1+j]   key j's threshold: every decision is admitted if the key's
--             count is below it (the least of n - p over its checks, p =
--             the checks on the key before that one in the call)
-- ARGV[1+k+j] key j's demand: how many checks of the call are on it
-- ARGV[2k+2]  per key, two decimal integers, all separated by one space
--             (read only when needed): the end of its window (Unix ms, the
--             caller's clock) and its TTL if the call creates it with every
--             decision admitted (end - the now of its first decision +
--             grace)
-- ARGV[2k+3]  D, the number of decisions
-- ARGV[2k+4]  the decisions, as decimal integers separated by one space
--             (one argument for the whole call: read only when the call is
--             decided decision by decision); per decision: now (Unix ms),
--             m (its number of checks), then per check: key index into
--             KEYS (1-based), requests n
--
-- Every key is read once (one MGET). When every count is below its
-- threshold, every decision is admitted: each key gets its demand added
-- and the reply is {1, count of KEYS[1] before the call, ..., of KEYS[k]},
-- from which the caller computes each decision (acd_core's decide_stack
-- over those counts). Otherwise the decisions are decided here one by one,
-- and the reply is {0, then 3 integers per decision: admitted, index,
-- remaining}: admitted 1 with the tightest check passed (0-based index, -1
-- when there is none); admitted 0 with the refusing check that admits
-- again last, remaining 0; or admitted -1 when the key at 0-based index
-- `index` holds something other than a count (that decision only; delete
-- the key or let it expire). The caller knows each check's window end: it
-- is the reset (and, refused, the retry) time.
--
-- A key that already holds a count gets one INCRBY by what the call
-- admitted on it (in place: no reset, no new TTL); a new key is written
-- once with SET … PX = (its window's end - the now of the decision that
-- created it) + grace, so no key ever lacks a TTL. A refused decision
-- changes nothing.

local tonumber, call, match, gmatch, format =
  tonumber, redis.call, string.match, string.gmatch, string.format
local MAX_E = 4294967295 -- u32::MAX

local k = #KEYS
local grace = tonumber(ARGV[1])
local decisions = tonumber(ARGV[2 * k + 3])
if grace == nil or decisions == nil then
  return redis.error_reply('ACDARGS malformed call')
end

-- Load every count (one MGET; a key of another type reads as absent and is
-- replaced on admission: the namespace is this script's). A string that is
-- not a count marks the key bad: decisions that touch it fail alone.
local C, bad, add, new = {}, {}, {}, {}
local values = {}
if #KEYS > 0 then values = call('MGET', unpack(KEYS)) end
local fast = true
for j = 1, k do
  local value = values[j]
  local c = 0
  if value then
    -- A count as Redis writes an integer: no sign, no leading zero.
    if value == '0' or (#value <= 10 and match(value, '^[1-9]%d*$')) then
      c = tonumber(value)
      if c > MAX_E then
        bad[j], c = true, 0
      end
    else
      bad[j] = true
    end
  else
    new[j] = true
  end
  C[j] = c
  add[j] = 0
  if fast then
    local threshold = tonumber(ARGV[1 + j])
    if threshold == nil then return redis.error_reply('ACDARGS malformed threshold') end
    if bad[j] or c >= threshold then fast = false end
  end
end

-- Each key's window end and TTL (E[j], TTL[j]), read when first needed.
local E, TTL = nil, nil
local function read_windows()
  E, TTL = {}, {}
  local j, second = 1, false
  for word in gmatch(ARGV[2 * k + 2] or '', '%S+') do
    if second then
      TTL[j] = word
      j = j + 1
    else
      E[j] = tonumber(word)
    end
    second = not second
  end
end

if fast then
  -- Every decision admitted: add each key's demand, reply with the counts
  -- (every argument checked before the first write).
  for j = 1, k do
    if new[j] then
      if TTL == nil then read_windows() end
      if TTL[j] == nil then return redis.error_reply('ACDARGS malformed windows') end
    end
  end
  local reply = { 1 }
  for j = 1, k do
    if new[j] then
      call('SET', KEYS[j], ARGV[1 + k + j], 'PX', TTL[j])
    else
      call('INCRBY', KEYS[j], ARGV[1 + k + j])
    end
    reply[j + 1] = C[j]
  end
  return reply
end

read_windows()
local function ends(j)
  return E[j]
end

-- The decisions' numbers, read one after another.
local word = gmatch(ARGV[2 * k + 4] or '', '%S+')

local reply, r = { 0 }, 1
local pending = {} -- the current decision's tentative counts per key
local js = {} -- the current decision's key indices
local born = {} -- a new key: the now of the decision that created it
for _ = 1, decisions do
  local now_word = word()
  local m = tonumber(word())
  if m == nil then return redis.error_reply('ACDARGS malformed decision') end
  local best, best_rem, best_j
  local refused, refused_j
  local unreadable
  -- Decide every check against the tentative counts; nothing is kept
  -- unless every check admits.
  for i = 1, m do
    local j = tonumber(word())
    local n = tonumber(word())
    js[i] = j
    if j == nil or C[j] == nil or n == nil or ends(j) == nil then
      return redis.error_reply('ACDARGS malformed check ' .. i)
    end
    if bad[j] then
      unreadable = unreadable or j
    elseif not unreadable then
      local used = pending[j] or (C[j] + add[j])
      if used < n then
        pending[j] = used + 1
        local rem = n - used - 1
        -- The tightest: least remaining, then the one that resets last,
        -- then the first.
        if best == nil or rem < best_rem or (rem == best_rem and E[j] > E[best_j]) then
          best, best_rem, best_j = i, rem, j
        end
      elseif refused == nil or E[j] > E[refused_j] then
        -- The refusing check that admits again last (its window's end).
        refused, refused_j = i, j
      end
    end
  end
  local out1, out2, out3
  if unreadable then
    out1, out2, out3 = -1, unreadable - 1, 0
  elseif refused then
    out1, out2, out3 = 0, refused - 1, 0
  elseif best == nil then
    out1, out2, out3 = 1, -1, 0
  else
    out1, out2, out3 = 1, best - 1, best_rem
  end
  -- Keep (admitted) or drop (refused, unreadable) the tentative counts.
  for i = 1, m do
    local j = js[i]
    local used = pending[j]
    if used then
      if out1 == 1 then
        add[j] = used - C[j]
        if new[j] and born[j] == nil then
          local now = tonumber(now_word)
          if now == nil then return redis.error_reply('ACDARGS malformed decision') end
          born[j] = now
        end
      end
      pending[j] = nil
    end
  end
  reply[r + 1], reply[r + 2], reply[r + 3] = out1, out2, out3
  r = r + 3
end

-- Save what was admitted: INCRBY on a count (in place, its TTL kept), or
-- a new count with its TTL in one SET.
for j = 1, k do
  local added = add[j]
  if added > 0 then
    if new[j] then
      local ttl = E[j] - born[j] + grace
      if ttl < 1 then ttl = 1 end
      call('SET', KEYS[j], format('%d', added), 'PX', format('%d', ttl))
    else
      call('INCRBY', KEYS[j], format('%d', added))
    end
  end
end
return reply
