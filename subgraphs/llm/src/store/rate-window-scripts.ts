import { WINDOW_BUCKETS } from '../domain/rate-limits.js';

/**
 * The rate windows' Lua scripts (store/rate-window-redis.ts runs them). A script runs alone in
 * Redis, so each is atomic, and on Redis's clock, so every instance counts the same seconds.
 * Per scope: a hash of request counts and one of tokens, by second, and a sorted set of requests
 * in flight scored by when they stop counting. They mirror domain/rate-limits.ts: the same
 * buckets, the same waits.
 */

/**
 * A window's summary, kept next to its buckets (key `<window>s`, a string
 * `second:used:oldest:expiring`): what the window counted at `second` (used amount and oldest
 * counted bucket, -1 when empty) and whether the buckets' expiry was set in that second. Every
 * change a script makes to the buckets updates it, so within one second a script reads the
 * window in O(1) instead of walking its (up to 61) buckets; the first script of a new second
 * walks them once (deleting stale ones) and writes it anew. It is used only in the second it
 * names: a bucket stops counting only when the second changes. Lua helpers shared by the scripts.
 */
const SUMMARY = `
local function readSummary(skey, sec)
  local s = redis.call('GET', skey)
  if not s then return nil end
  local at, used, first, expiring = string.match(s, '^(%-?%d+):(%-?%d+):(%-?%d+):(%d)$')
  if tonumber(at) ~= sec then return nil end
  return {used = tonumber(used), first = tonumber(first), expiring = expiring == '1'}
end
local function writeSummary(skey, sec, w)
  redis.call('SET', skey, string.format('%.0f:%.0f:%.0f:%d', sec, w.used, w.first, w.expiring and 1 or 0), 'PX', 2000)
end`;

/**
 * Admits a batch of requests, one after the other, exactly as if each had run alone at the same
 * instant (a batch is what one instance sent in one turn of its event loop). Each window is read
 * once per batch, from its summary when it has one for this second: later requests see the
 * earlier ones' counts through `added` (every admission lands in the current second). ARGV: the
 * number of requests, then per request its scope count n, tokens needed, member and in-flight
 * TTL, then per scope its limits (-1: none); KEYS: per request, per scope its requests, tokens
 * and in-flight keys and the requests and tokens windows' summaries. Answers, flat, per request:
 * admitted (1/0), now in ms, the second, the refusal (scope index, kind, used, requested, wait
 * ms; -1 for never), then per scope requests used, their oldest bucket, tokens used, their oldest
 * bucket, in flight. After the requests, slices (rate-window-redis.ts): ARGV their count, then
 * per slice its scope's requests and tokens limits (-1: none) and the requests and tokens to
 * reserve; KEYS per slice its requests and tokens keys and their summaries; answers per slice
 * reserved (1/0), the second, and the window as the requests left it (requests used, oldest,
 * tokens used, oldest).
 */
export const ADMIT = `${SUMMARY}
local t = redis.call('TIME')
local sec = tonumber(t[1])
local now = sec * 1000 + math.floor(tonumber(t[2]) / 1000)
local oldest = sec - ${WINDOW_BUCKETS - 1}
local windows = {}
-- A window read once per batch: from its summary of this second, or in one allocation-free pass
-- over its buckets (used amount, oldest counted bucket, -1 when empty; stale buckets deleted).
local function window(key, skey)
  local w = windows[key]
  if w then return w end
  w = readSummary(skey, sec)
  if w then
    w.added, w.skey, w.changed = 0, skey, false
    windows[key] = w
    return w
  end
  local all = redis.call('HGETALL', key)
  local used, first, stale = 0, -1, nil
  for i = 1, #all, 2 do
    local b = tonumber(all[i])
    if b < oldest then
      if not stale then stale = {} end
      stale[#stale + 1] = all[i]
    else
      local v = tonumber(all[i + 1])
      if v ~= 0 then
        used = used + v
        if first < 0 or b < first then first = b end
      end
    end
  end
  if stale then redis.call('HDEL', key, unpack(stale)) end
  w = {used = used, first = first, expiring = false, all = all, base = 0, added = 0, skey = skey, changed = true}
  windows[key] = w
  return w
end
-- How long until amount fits under limit: 0 now, -1 never; only a refusal needs the buckets in
-- order (read now if the summary stood in for them: they then hold this batch's additions so far).
local function wait(w, key, limit, amount)
  if amount > limit then return -1 end
  local excess = w.used + amount - limit
  if excess <= 0 then return 0 end
  if not w.all then w.all, w.base = redis.call('HGETALL', key), w.added end
  local buckets, all, current, extra = {}, w.all, false, w.added - w.base
  for i = 1, #all, 2 do
    local b, v = tonumber(all[i]), tonumber(all[i + 1])
    if b >= oldest then
      if b == sec then v = v + extra; current = true end
      if v ~= 0 then buckets[#buckets + 1] = {b, v} end
    end
  end
  if not current and extra ~= 0 then buckets[#buckets + 1] = {sec, extra} end
  table.sort(buckets, function(a, b) return a[1] < b[1] end)
  for _, b in ipairs(buckets) do
    excess = excess - b[2]
    if excess <= 0 then return math.max(1, (b[1] + ${WINDOW_BUCKETS}) * 1000 - now) end
  end
  return -1
end
-- The buckets expire ${WINDOW_BUCKETS + 1} s after the first addition of a second, so after every bucket they hold stopped counting.
local function add(key, amount)
  redis.call('HINCRBY', key, sec, amount)
  local w = windows[key]
  if not w.expiring then redis.call('PEXPIRE', key, ${WINDOW_BUCKETS + 1} * 1000); w.expiring = true end
  w.used = w.used + amount
  w.added = w.added + amount
  w.changed = true
  if w.first < 0 then w.first = sec end
end
local out, ka, aa = {}, 0, 2
for _ = 1, tonumber(ARGV[1]) do
  local n, need, member, ttl = tonumber(ARGV[aa]), tonumber(ARGV[aa + 1]), ARGV[aa + 2], tonumber(ARGV[aa + 3])
  aa = aa + 4
  local refusal, uses = nil, {}
  for i = 1, n do
    local k, a = ka + 5 * (i - 1), aa + 3 * (i - 1)
    local rpm, tpm, conc = tonumber(ARGV[a]), tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2])
    local ru, ro, tu, to, inflight = 0, -1, 0, -1, 0
    if rpm >= 0 then
      local w = window(KEYS[k + 1], KEYS[k + 4])
      ru, ro = w.used, w.first
      if not refusal then local d = wait(w, KEYS[k + 1], rpm, 1); if d ~= 0 then refusal = {i, 1, w.used, 1, d} end end
    end
    if tpm >= 0 then
      local w = window(KEYS[k + 2], KEYS[k + 5])
      tu, to = w.used, w.first
      if not refusal then local d = wait(w, KEYS[k + 2], tpm, need); if d ~= 0 then refusal = {i, 2, w.used, need, d} end end
    end
    if conc >= 0 then
      redis.call('ZREMRANGEBYSCORE', KEYS[k + 3], '-inf', now)
      inflight = redis.call('ZCARD', KEYS[k + 3])
      if not refusal and inflight >= conc then refusal = {i, 3, inflight, 1, 1000} end
    end
    uses[#uses + 1] = ru; uses[#uses + 1] = ro; uses[#uses + 1] = tu; uses[#uses + 1] = to; uses[#uses + 1] = inflight
  end
  if refusal then
    out[#out + 1] = 0; out[#out + 1] = now; out[#out + 1] = sec
    for j = 1, 5 do out[#out + 1] = refusal[j] end
  else
    for i = 1, n do
      local k, a = ka + 5 * (i - 1), aa + 3 * (i - 1)
      if tonumber(ARGV[a]) >= 0 then add(KEYS[k + 1], 1) end
      if tonumber(ARGV[a + 1]) >= 0 and need > 0 then add(KEYS[k + 2], need) end
      if tonumber(ARGV[a + 2]) >= 0 then redis.call('ZADD', KEYS[k + 3], now + ttl, member); redis.call('PEXPIRE', KEYS[k + 3], ttl) end
    end
    out[#out + 1] = 1; out[#out + 1] = now; out[#out + 1] = sec
    for _ = 1, 5 do out[#out + 1] = 0 end
  end
  for _, v in ipairs(uses) do out[#out + 1] = v end
  ka = ka + 5 * n
  aa = aa + 3 * n
end
-- Slices, after the batch's requests: a scope's slice is reserved only while the window, slice
-- included, stays within half of each of its limits (-1: that dimension has none).
for _ = 1, tonumber(ARGV[aa]) do
  local rpm, tpm, sr, st = tonumber(ARGV[aa + 1]), tonumber(ARGV[aa + 2]), tonumber(ARGV[aa + 3]), tonumber(ARGV[aa + 4])
  local ru, ro, tu, to, ok, wr, wt = 0, -1, 0, -1, true, nil, nil
  if rpm >= 0 then wr = window(KEYS[ka + 1], KEYS[ka + 3]); ru, ro = wr.used, wr.first; ok = wr.used + sr <= rpm / 2 end
  if tpm >= 0 then wt = window(KEYS[ka + 2], KEYS[ka + 4]); tu, to = wt.used, wt.first; ok = ok and wt.used + st <= tpm / 2 end
  if ok then
    if wr then add(KEYS[ka + 1], sr) end
    if wt then add(KEYS[ka + 2], st) end
  end
  out[#out + 1] = ok and 1 or 0; out[#out + 1] = sec
  out[#out + 1] = ru; out[#out + 1] = ro; out[#out + 1] = tu; out[#out + 1] = to
  ka = ka + 4
  aa = aa + 4
end
for _, w in pairs(windows) do if w.changed then writeSummary(w.skey, sec, w) end end
return out`;

/**
 * Takes an amount counted in an earlier second's bucket back out of it (a settled estimate, an
 * unused slice), keeping the window's summary of this second right. Lua helpers shared by the
 * scripts that take back.
 */
const TAKE_BACK = `${SUMMARY}
local sec = tonumber(redis.call('TIME')[1])
local summaries = {}
local function summary(skey)
  local w = summaries[skey]
  if w == nil then w = readSummary(skey, sec) or false; summaries[skey] = w end
  return w
end
local function takeBack(key, skey, bucket, amount)
  if tonumber(bucket) < sec - ${WINDOW_BUCKETS - 1} or amount <= 0 or redis.call('HEXISTS', key, bucket) == 0 then return end
  local left = redis.call('HINCRBY', key, bucket, -amount)
  local w = summary(skey)
  if left <= 0 then
    redis.call('HDEL', key, bucket)
    if w then
      -- The oldest bucket gone: the next read walks the buckets. (The last field gone takes the hash's expiry with it.)
      if w.first == tonumber(bucket) then summaries[skey] = false; redis.call('DEL', skey)
      else w.used = w.used - (left + amount); w.expiring = false; w.changed = true end
    end
  elseif w then w.used = w.used - amount; w.changed = true end
end
local function writeSummaries()
  for skey, w in pairs(summaries) do if w and w.changed then writeSummary(skey, sec, w) end end
end`;

/**
 * Settles a batch of ended requests: each one's token estimate leaves its bucket, its actual
 * tokens land in this second's, and it leaves the in-flight sets; a tokens window's summary of
 * this second follows (or is dropped when the oldest bucket went). ARGV: the number of requests,
 * then per request its scope count n, member, admitted second, estimate and actual tokens, then
 * per scope whether it counts tokens and whether it counts requests in flight (1/0); KEYS: per
 * request, per scope its tokens and in-flight keys and the tokens window's summary.
 */
export const SETTLE = `${TAKE_BACK}
local ka, aa = 0, 2
for _ = 1, tonumber(ARGV[1]) do
  local n, member, admitted, estimate, actual = tonumber(ARGV[aa]), ARGV[aa + 1], ARGV[aa + 2], tonumber(ARGV[aa + 3]), tonumber(ARGV[aa + 4])
  aa = aa + 5
  for i = 1, n do
    local tk, ck, sk = KEYS[ka + 3 * i - 2], KEYS[ka + 3 * i - 1], KEYS[ka + 3 * i]
    if ARGV[aa + 2 * (i - 1)] == '1' then
      takeBack(tk, sk, admitted, estimate)
      if actual > 0 then
        redis.call('HINCRBY', tk, sec, actual); redis.call('PEXPIRE', tk, ${WINDOW_BUCKETS + 1} * 1000)
        local w = summary(sk)
        if w then
          w.used = w.used + actual; w.expiring = true; w.changed = true
          if w.first < 0 then w.first = sec end
        end
      end
    end
    if ARGV[aa + 2 * (i - 1) + 1] == '1' then redis.call('ZREM', ck, member) end
  end
  ka = ka + 3 * n
  aa = aa + 2 * n
end
writeSummaries()
return 1`;

/**
 * Hands unused slices back (rate-window-redis.ts): each amount leaves the bucket it was reserved
 * in. KEYS: per slice window its key and its summary's; ARGV: per slice window its second and amount.
 */
export const RELEASE = `${TAKE_BACK}
for i = 1, #KEYS / 2 do takeBack(KEYS[2 * i - 1], KEYS[2 * i], ARGV[2 * i - 1], tonumber(ARGV[2 * i])) end
writeSummaries()
return 1`;

/** Requests still in flight stay counted for another TTL (only those still in the set). */
export const RENEW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
for i = 1, #KEYS do redis.call('ZADD', KEYS[i], 'XX', now + tonumber(ARGV[1]), ARGV[i + 1]); redis.call('PEXPIRE', KEYS[i], tonumber(ARGV[1])) end
return 1`;
