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
-- ARGV[2]     per key, two decimal integers, all separated by one space
--             (read only when needed): the end of its window (Unix ms, the
--             caller's clock) and its TTL if the call creates it with every
--             decision admitted (end - the now of its first decision +
--             grace)
-- ARGV[3]     D, the number of decisions
-- ARGV[4]     the decisions, as decimal integers separated by one space
--             (one argument for the whole call: read only when the call is
--             decided decision by decision); per decision: now (Unix ms),
--             m (its number of checks), then per check: key index into
--             KEYS (1-based), requests n
-- ARGV[5]     k bytes, byte j the group of key j (1-based); any other
--             length (e.g. empty) skips the one pass below
-- ARGV[4+2g], ARGV[5+2g]
--             group g's ceiling u and demand d: each key of the group has
--             d checks in the call, and every decision is admitted if its
--             count after adding d is below u (u - d is the least of n - p
--             over its checks, p = the checks on the key before that one
--             in the call: with one limit, u = n + 1). A call has few
--             groups (one per limit and demand), so no key has a number
--             of its own to parse.
--
-- The one pass: every key gets its demand added at once with INCRBY,
-- whose answer (the count after it) is the only read. When every count
-- was below its threshold, every decision is admitted, a key the pass
-- created gets its TTL, and the reply is {1, count of KEYS[1] before the
-- call, ..., of KEYS[k]}, from which the caller computes each decision
-- (acd_core's decide_stack over those counts). Otherwise (a count at its
-- threshold, a key holding anything but a count) the decisions are
-- decided here one by one. The keys the pass counted on keep its counts
-- (their counts before the call are known from it: the script is atomic,
-- so nobody sees them meanwhile) and at the end get only the difference
-- from what was admitted; the other keys are read with one MGET. The
-- reply is then {0, then 3 integers per decision: admitted, index,
-- remaining}: admitted 1 with the tightest check passed (0-based index,
-- -1 when there is none); admitted 0 with the refusing check that admits
-- again last, remaining 0; or admitted -1 when the key at 0-based index
-- `index` holds something other than a count (that decision only; delete
-- the key or let it expire). The caller knows each check's window end:
-- it is the reset (and, refused, the retry) time. An error reply (a
-- malformed call) first puts back everything the pass counted.
--
-- A key that already holds a count is added to in place (no reset, no new
-- TTL); a new key gets PX = (its window's end - the now of the decision
-- that created it) + grace in the same call, so no key ever outlives its
-- script call without a TTL. A refused decision changes nothing.

local tonumber, call, pcall, match, gmatch, format, byte, next, pairs, type =
  tonumber, redis.call, redis.pcall, string.match, string.gmatch, string.format,
  string.byte, next, pairs, type
local MAX_E = 4294967295 -- u32::MAX

local k = #KEYS
local grace = tonumber(ARGV[1])
local decisions = tonumber(ARGV[3])
if grace == nil or decisions == nil then
  return redis.error_reply('ACDARGS malformed call')
end

-- Each key's window end and TTL (E[j], TTL[j]), read when first needed.
local E, TTL = nil, nil
local function read_windows()
  E, TTL = {}, {}
  local j, second = 1, false
  for word in gmatch(ARGV[2] or '', '%S+') do
    if second then
      TTL[j] = word
      j = j + 1
    else
      E[j] = tonumber(word)
    end
    second = not second
  end
end

-- The groups' ceilings and demands (as numbers, and the demand as sent,
-- for INCRBY); every one checked before the first write.
local U, D, DS = {}, {}, {}
for g = 1, (#ARGV - 5) / 2 do
  local u, d = tonumber(ARGV[4 + 2 * g]), tonumber(ARGV[5 + 2 * g])
  if u == nil or d == nil then return redis.error_reply('ACDARGS malformed group') end
  U[g], D[g], DS[g] = u, d, ARGV[5 + 2 * g]
end

-- The one pass (see above); `done` is the last key it counted on.
local of = {}
if k > 0 and #(ARGV[5] or '') == k then of = { byte(ARGV[5], 1, k) } end
local before = { 1 }
local created = {}
local done, fits = 0, #of == k
if fits then
  for j = 1, k do
    local g = of[j]
    local u, d = U[g], D[g]
    if u == nil then
      fits = false
      break
    end
    local after = pcall('INCRBY', KEYS[j], DS[g])
    if type(after) ~= 'number' then
      fits = false
      break
    end
    done = j
    if after == d then created[j] = true end
    before[j + 1] = after - d
    if after < d or after >= u then
      fits = false
      break
    end
  end
end
-- Puts back every key the pass counted on (on an error reply, which
-- must leave nothing changed).
local function undo()
  for j = 1, done do
    if created[j] then
      call('DEL', KEYS[j])
    else
      call('DECRBY', KEYS[j], DS[of[j]])
    end
  end
  done = 0
end

if fits then
  if next(created) == nil then return before end
  -- A key this pass created gets its TTL: its window's end - the now of
  -- the decision that created it + grace.
  read_windows()
  for j in pairs(created) do
    if TTL[j] == nil then
      undo()
      return redis.error_reply('ACDARGS malformed windows')
    end
  end
  for j in pairs(created) do call('PEXPIRE', KEYS[j], TTL[j]) end
  return before
end

-- Decision by decision. Keys 1..done already hold their count plus
-- their demand: their counts before the call are known from the pass,
-- and the end adds (usually, takes back) only the difference. The other
-- keys are read with one MGET; a key of another type reads as absent
-- and is replaced on admission (the namespace is this script's), and a
-- string that is not a count marks the key bad: decisions that touch it
-- fail alone.
local C, bad, add, new = {}, {}, {}, {}
for j = 1, done do
  local c = before[j + 1]
  if c < 0 or c > MAX_E then
    bad[j], c = true, 0
  end
  C[j], add[j], new[j] = c, 0, created[j]
end
local values = {}
if done < k then values = call('MGET', unpack(KEYS, done + 1, k)) end
for j = done + 1, k do
  local value = values[j - done]
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
end

read_windows()
local function ends(j)
  return E[j]
end

-- The decisions' numbers, read one after another (nil past the end or
-- for a word that is not a number: never a Lua error, which would keep
-- the pass's counts).
local word = gmatch(ARGV[4] or '', '%S+')
local function number()
  local w = word()
  if w == nil then return nil end
  return tonumber(w)
end

local reply, r = { 0 }, 1
local pending = {} -- the current decision's tentative counts per key
local js = {} -- the current decision's key indices
local born = {} -- a new key: the now of the decision that created it
for _ = 1, decisions do
  local now_word = word()
  local m = number()
  if m == nil then
    undo()
    return redis.error_reply('ACDARGS malformed decision')
  end
  local best, best_rem, best_j
  local refused, refused_j
  local unreadable
  -- Decide every check against the tentative counts; nothing is kept
  -- unless every check admits.
  for i = 1, m do
    local j = number()
    local n = number()
    js[i] = j
    if j == nil or C[j] == nil or n == nil or ends(j) == nil then
      undo()
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
          if now == nil then
            undo()
            return redis.error_reply('ACDARGS malformed decision')
          end
          born[j] = now
        end
      end
      pending[j] = nil
    end
  end
  reply[r + 1], reply[r + 2], reply[r + 3] = out1, out2, out3
  r = r + 3
end

-- A key the call creates lives until its window's end - the now of the
-- decision that created it + grace (at least 1 ms).
local function ttl_of(j)
  local ttl = E[j] - born[j] + grace
  if ttl < 1 then ttl = 1 end
  return format('%d', ttl)
end

-- Save what was admitted. A key the pass counted on gets the difference
-- (what was admitted less its demand: nothing when every check on it was
-- admitted), or is put back whole if it is bad; one the pass created
-- keeps what was admitted with its TTL, or is deleted. Any other key:
-- INCRBY on a count (in place, its TTL kept), or a new count with its
-- TTL in one SET.
for j = 1, k do
  local added = add[j]
  if j <= done then
    local demand = D[of[j]]
    if bad[j] then
      call('DECRBY', KEYS[j], DS[of[j]])
    elseif new[j] and added == 0 then
      call('DEL', KEYS[j])
    else
      if added ~= demand then call('INCRBY', KEYS[j], format('%d', added - demand)) end
      if new[j] then call('PEXPIRE', KEYS[j], ttl_of(j)) end
    end
  elseif added > 0 then
    if new[j] then
      call('SET', KEYS[j], format('%d', added), 'PX', ttl_of(j))
    else
      call('INCRBY', KEYS[j], format('%d', added))
    end
  end
end
return reply
