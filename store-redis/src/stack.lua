-- acd: stacked GCRA decisions, each atomic and all or none; several
-- decisions of one namespace may share one call (they are decided in
-- order, exactly as if sent one after the other).
--
-- The Lua mirror of acd_core::limit::decide_stack over Gcra (fixed windows
-- have their own script, window.lua, with one counter per window);
-- the arithmetic is the one written out in acd_core::limit's documentation.
-- A differential test (store-redis/tests/differential.rs) runs random
-- timelines through both and requires identical answers.
--
-- KEYS[1..k]  the distinct state keys of every decision (one hash tag: one
--             slot)
-- ARGV[1]     algorithm: "gcra"
-- ARGV[2]     grace, ms added to every TTL (covers clock skew between callers)
-- ARGV[3]     D, the number of decisions; then per decision:
--               now (Unix ms, the caller's clock: Redis's is never read),
--               m (its number of checks), then per check:
--               key index into KEYS (1-based), requests n, window w (ms, >= 1)
--
-- The caller keeps now and w at most 2^51 ms, so every number below is an
-- integer under 2^53 and exact in Lua's doubles.
--
-- State: a string "T:E" of two decimal integers; absent = "0:0":
--   T = TAT whole ms, E = TAT fraction in units of 1/n ms
-- Every key is read once (one MGET) and every key an admitted decision
-- changed is written once at the end, with PX = (its expiry - the now of
-- its last change) + grace; a refused decision changes nothing.
--
-- Reply: 5 integers per decision, {admitted, index, remaining, reset_at,
-- retry_at}: admitted 1 with the tightest check passed (index 0-based) and
-- retry_at = now; admitted 0 with the refusing check that admits again
-- last, remaining 0; or admitted -1 when the key at 0-based index `index`
-- holds a state this script cannot read (that decision only; delete the key
-- or let it expire).

local floor, match, format = math.floor, string.match, string.format
local tonumber, call = tonumber, redis.call

local MAX_T = 4503599627370496 -- 2^52: no state written by this script is later
local MAX_E = 4294967295 -- u32::MAX
local P19 = 524288 -- 2^19

local algorithm = ARGV[1]
local grace = tonumber(ARGV[2])
local decisions = tonumber(ARGV[3])
local now -- the current decision's time (read by the steps below)

-- ceil((k*r + f) / n), exactly, for k, r, f, n < 2^32.
local function ceil_kr(k, r, f, n)
  local kh = floor(k / P19)
  local kl = k - kh * P19
  local a = kh * r -- < 2^45
  local a1 = floor(a / n)
  local a0 = a - a1 * n
  local b = a0 * P19 + kl * r + f -- < 2^52 + 2^32
  local b1 = floor(b / n)
  local c = a1 * P19 + b1
  if b - b1 * n > 0 then c = c + 1 end
  return c
end

-- Whether k*w <= a*n - f, with w = q*n + r: (a - k*q)*n >= k*r + f.
local function fits(k, n, q, r, a, f)
  local left = a - k * q
  if left < 0 then return false end
  return left >= ceil_kr(k, r, f, n)
end

-- floor((a*n - f) / w) exactly: a double estimate (off by less than one),
-- then corrected with exact comparisons.
local function gcra_remaining(n, w, q, r, a, f)
  local k = floor((a * n - f) / w)
  if k < 0 then k = 0 end
  if k > n then k = n end
  while k > 0 and not fits(k, n, q, r, a, f) do k = k - 1 end
  while k < n and fits(k + 1, n, q, r, a, f) do k = k + 1 end
  return k
end

-- GCRA: returns admitted, remaining, reset_at, retry_at, next T, next E.
local function gcra(n, w, t, e)
  if n == 0 then
    local at = now + w
    return false, 0, at, at
  end
  -- A TAT more than two windows ahead was written by a clock more than
  -- one window ahead of now: discarded (a wrong reading costs one window).
  if t > now + 2 * w then t, e = 0, 0 end
  local full = t
  if e > 0 then full = t + 1 end
  local f = e
  if f > n - 1 then f = n - 1 end
  local q = floor(w / n)
  local r = w - q * n
  local bm, bf
  if t >= now then bm, bf = t, f else bm, bf = now, 0 end
  local xf = bf + r
  local xm = bm + q
  if xf >= n then
    xf = xf - n
    xm = xm + 1
  end
  local d = xm - now
  local up = 0
  if xf > 0 then up = 1 end
  if d < w or (d == w and xf == 0) then
    return true, gcra_remaining(n, w, q, r, w - d, xf), xm + up, now, xm, xf
  end
  return false, 0, full, xm - w + up
end

if algorithm ~= 'gcra' then
  return redis.error_reply('ACDARGS unknown algorithm')
end
local step = gcra

-- Load every key's state (one MGET; a key of another type reads as absent
-- and is replaced on admission: the namespace is this script's). A value
-- that is not "T:E" marks the key bad: decisions that touch it fail alone.
local T, E, bad, at = {}, {}, {}, {}
local values = {}
if #KEYS > 0 then values = call('MGET', unpack(KEYS)) end
for j = 1, #KEYS do
  local value = values[j]
  local t, e = 0, 0
  if value then
    local ts, es = match(value, '^(%d+):(%d+)$')
    if ts == nil or #ts > 16 or #es > 10 then
      bad[j] = true
    else
      t, e = tonumber(ts), tonumber(es)
      if t > MAX_T or e > MAX_E then bad[j] = true end
    end
  end
  T[j], E[j] = t, e
end

local reply, r = {}, 0
local pos = 4
local nt, ne = {}, {}
for _ = 1, decisions do
  now = tonumber(ARGV[pos])
  local m = tonumber(ARGV[pos + 1])
  if now == nil or m == nil then
    return redis.error_reply('ACDARGS malformed decision')
  end
  pos = pos + 2
  local first = pos
  local best, best_rem, best_reset
  local refused, refused_reset, refused_retry
  local unreadable
  -- Decide every check against the tentative states; nothing is kept
  -- unless every check admits.
  for i = 1, m do
    local j = tonumber(ARGV[pos])
    local n = tonumber(ARGV[pos + 1])
    local w = tonumber(ARGV[pos + 2])
    pos = pos + 3
    if j == nil or T[j] == nil or n == nil or w == nil or w < 1 then
      return redis.error_reply('ACDARGS malformed check ' .. i)
    end
    if bad[j] then
      unreadable = unreadable or j
    elseif not unreadable then
      local t, e = nt[j] or T[j], ne[j] or E[j]
      local ok, rem, reset, retry, t2, e2 = step(n, w, t, e)
      if ok then
        nt[j], ne[j] = t2, e2
        if best == nil or rem < best_rem or (rem == best_rem and reset > best_reset) then
          best, best_rem, best_reset = i, rem, reset
        end
      elseif refused == nil or retry > refused_retry then
        refused, refused_reset, refused_retry = i, reset, retry
      end
    end
  end
  local out1, out2, out3, out4, out5
  if unreadable then
    out1, out2, out3, out4, out5 = -1, unreadable - 1, 0, 0, 0
  elseif refused then
    out1, out2, out3, out4, out5 = 0, refused - 1, 0, refused_reset, refused_retry
  elseif best == nil then
    out1, out2, out3, out4, out5 = 1, -1, 0, 0, now
  else
    out1, out2, out3, out4, out5 = 1, best - 1, best_rem, best_reset, now
  end
  -- Keep (admitted) or drop (refused, unreadable) the tentative states.
  for p = first, pos - 3, 3 do
    local j = tonumber(ARGV[p])
    if nt[j] then
      if out1 == 1 then T[j], E[j], at[j] = nt[j], ne[j], now end
      nt[j], ne[j] = nil, nil
    end
  end
  reply[r + 1], reply[r + 2], reply[r + 3], reply[r + 4], reply[r + 5] =
    out1, out2, out3, out4, out5
  r = r + 5
end

-- Save every changed state once, until just past its expiry.
for j = 1, #KEYS do
  local changed = at[j]
  if changed then
    local expires = T[j]
    if E[j] > 0 then expires = expires + 1 end
    local ttl = expires - changed + grace
    if ttl < 1 then ttl = 1 end
    call('SET', KEYS[j], format('%d:%d', T[j], E[j]), 'PX', format('%d', ttl))
  end
end
return reply
