-- acd: the namespace's epoch, which tells a gate instance whether Redis
-- still holds what it counted (a restart without persistence or a flush
-- loses the key with every count).
--
-- KEYS[1]  the epoch key ({ns}:<algorithm>:epoch), no TTL
-- ARGV[1]  a new random epoch, kept when the key is absent
--
-- Reply: the epoch now (the caller compares it with the one it saw last).

local value = redis.call('GET', KEYS[1])
if value then return value end
redis.call('SET', KEYS[1], ARGV[1])
return ARGV[1]
