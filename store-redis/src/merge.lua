-- acd: after an outage, add what a gate instance admitted on its own
-- (fail open, fixed window) to the shared counts, for windows still current.
--
-- KEYS[1..k]  state keys (one hash tag: one slot)
-- ARGV[1]     now, Unix ms (the caller's clock)
-- ARGV[2]     grace, ms added to every TTL
-- ARGV[2+2j-1], ARGV[2+2j]  for KEYS[j]: the end of the window the
--             instance counted in (ms) and how many it admitted there
--
-- A key whose stored window is that window gets the count added; a key
-- absent or in an older window starts that window with the count; a key
-- already in a newer window, a window that has ended, or a state that is
-- not "T:E" is left alone. Reply: how many keys changed.

local tonumber, match, format, call = tonumber, string.match, string.format, redis.call
local MAX_E = 4294967295 -- u32::MAX
local now = tonumber(ARGV[1])
local grace = tonumber(ARGV[2])
local changed = 0
for j = 1, #KEYS do
  local ends = tonumber(ARGV[1 + 2 * j])
  local count = tonumber(ARGV[2 + 2 * j])
  if ends and count and ends > now then
    local value = call('GET', KEYS[j])
    local t, e = 0, 0
    local readable = true
    if value then
      local ts, es = match(value, '^(%d+):(%d+)$')
      if ts then t, e = tonumber(ts), tonumber(es) else readable = false end
    end
    if readable and t <= ends then
      if t < ends then e = 0 end
      e = e + count
      if e > MAX_E then e = MAX_E end
      call('SET', KEYS[j], format('%d:%d', ends, e), 'PX', format('%d', ends - now + grace))
      changed = changed + 1
    end
  end
end
return changed
