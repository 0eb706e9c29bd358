-- acd: after an outage, add what a gate instance admitted on its own
-- (fail open, fixed window) to the shared counts, for windows still current.
--
-- KEYS[1..k]  window keys (one hash tag: one slot); each names its window
-- ARGV[1]     now, Unix ms (the caller's clock)
-- ARGV[2]     grace, ms added to every TTL
-- ARGV[2+2j-1], ARGV[2+2j]  for KEYS[j]: the end of its window (ms) and
--             how many the instance admitted there
--
-- A key holding a count gets the count added (its TTL kept); an absent key
-- starts with the count and a TTL of the window's remaining time plus the
-- grace; a window that has ended, or a key holding anything but a count,
-- is left alone. Reply: how many keys changed.

local tonumber, match, format, call = tonumber, string.match, string.format, redis.call
local MAX_E = 4294967295 -- u32::MAX
local now = tonumber(ARGV[1])
local grace = tonumber(ARGV[2])
local changed = 0
for j = 1, #KEYS do
  local ends = tonumber(ARGV[1 + 2 * j])
  local count = tonumber(ARGV[2 + 2 * j])
  if now and grace and ends and count and ends > now and count > 0 then
    local value = call('GET', KEYS[j])
    if value == false then
      if count > MAX_E then count = MAX_E end
      call('SET', KEYS[j], format('%d', count), 'PX', format('%d', ends - now + grace))
      changed = changed + 1
    elseif #value <= 10 and match(value, '^%d+$') and tonumber(value) <= MAX_E then
      local total = tonumber(value) + count
      if total > MAX_E then total = MAX_E end
      call('SET', KEYS[j], format('%d', total), 'KEEPTTL')
      changed = changed + 1
    end
  end
end
return changed
