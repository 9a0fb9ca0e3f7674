-- Shared by every wrk workload script: DynamoDB headers, the ~200 B item, fresh
-- and random keys, reply checking and the machine-readable summary run.py parses.
-- A workload script calls bench.workload{target=, init=, body=, check=}: body()
-- returns the request body and, to send another operation than target, its name.
-- wrk runs one Lua state per thread plus one for setup/done, so counters live in globals.
local M = {}

local AUTHORIZATION = "AWS4-HMAC-SHA256 Credential=AKIDBENCHMARK/20240101/us-east-1/dynamodb/aws4_request, "
  .. "SignedHeaders=content-type;host;x-amz-date;x-amz-target, Signature=" .. string.rep("0", 64)

-- The same attributes as ITEM_ATTRIBUTES in bench/dynamo.py (the key excluded).
M.ATTRIBUTES = '"name":{"S":"Ada Lovelace Byron King"},"email":{"S":"ada.lovelace@analytical.example"},'
  .. '"age":{"N":"36"},"active":{"BOOL":true},"payload":{"S":"' .. string.rep("x", 100) .. '"}'

-- Built once per operation, not per request.
local headers = setmetatable({}, { __index = function(cache, target)
  cache[target] = {
    ["Content-Type"] = "application/x-amz-json-1.0",
    ["X-Amz-Target"] = "DynamoDB_20120810." .. target,
    ["X-Amz-Date"] = "20240101T000000Z",
    ["Authorization"] = AUTHORIZATION,
  }
  return cache[target]
end })

-- "{"pk":{"S":"<key>"},<attributes>}": the whole item for a put.
function M.item(key)
  return '{"pk":{"S":"' .. key .. '"},' .. M.ATTRIBUTES .. '}'
end

-- Never seen before: run id (differs between warm-up and measured run), thread, counter.
local counter = 0
function M.fresh_key()
  counter = counter + 1
  return M.run .. "-" .. thread_id .. "-" .. counter
end

-- One of the preloaded keys (bench/workloads.py writes <prefix>0 .. <prefix>keys-1).
function M.random_index()
  return math.random(0, M.keys - 1)
end

-- Milliseconds on a monotonic clock (wrk gives Lua none; LuaJIT's ffi reaches clock_gettime).
local function clock_ms()
  local ffi = require("ffi")
  ffi.cdef [[
    typedef struct { long tv_sec; long tv_nsec; } bench_timespec;
    int clock_gettime(int clock, bench_timespec *now);
  ]]
  local now = ffi.new("bench_timespec")
  return function()
    ffi.C.clock_gettime(1, now) -- CLOCK_MONOTONIC
    return tonumber(now.tv_sec) * 1000 + tonumber(now.tv_nsec) / 1e6
  end
end

-- A delay() holding this thread at `rate` requests/s. wrk calls delay() before each
-- request of a connection but does not say which connection, so the schedule is the
-- thread's: each call takes the next send time of a Poisson schedule (exponential gaps)
-- and waits until it. The rate then does not depend on the reply time, as a fixed wait
-- per connection would. Behind schedule (every connection busy), it sends at once.
-- wrk waits whole milliseconds: the wait is rounded up or down at random, so that
-- the rounding averages out.
function M.pacer(rate)
  local now_ms, gap, next_send = clock_ms(), 1000 / rate, nil
  return function()
    local now = now_ms()
    next_send = (next_send or now) - math.log(1 - math.random()) * gap
    local wait = next_send - now
    if wait <= 0 then return 0 end
    local whole = math.floor(wait)
    return whole + (math.random() < wait - whole and 1 or 0)
  end
end

local threads = {}

function M.workload(spec)
  function setup(thread)
    thread:set("thread_id", #threads)
    table.insert(threads, thread)
  end

  -- wrk ... -- <table> <run id> <key count> <check: 1 checks reply bodies, 0 only statuses>
  --            [<requests/s of this thread; absent or 0: as fast as replies come>]
  local check
  function init(args)
    errors, first_error = 0, ""
    M.table, M.run, M.keys = args[1], args[2], tonumber(args[3])
    check = args[4] == "1" and spec.check
    math.randomseed(os.time() + thread_id * 7919)
    local rate = tonumber(args[5] or "0")
    if rate > 0 then delay = M.pacer(rate) end -- wrk looks for delay() after init()
    spec.init()
  end

  function request()
    local body, target = spec.body()
    return wrk.format("POST", "/", headers[target or spec.target], body)
  end

  function response(status, headers, body)
    if status ~= 200 or (check and not check(body)) then
      errors = errors + 1
      if first_error == "" then first_error = status .. " " .. body end
    end
  end

  function done(summary, latency, requests)
    local bad, first = 0, ""
    for _, thread in ipairs(threads) do
      bad = bad + thread:get("errors")
      if first == "" then first = thread:get("first_error") end
    end
    local socket = summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout
    io.write(string.format("BENCH requests %d\n", summary.requests))
    io.write(string.format("BENCH duration_us %d\n", summary.duration))
    io.write(string.format("BENCH errors %d\n", bad + socket))
    io.write(string.format("BENCH p50_us %d\n", latency:percentile(50)))
    io.write(string.format("BENCH p99_us %d\n", latency:percentile(99)))
    if socket > 0 and first == "" then first = "socket errors: " .. socket end
    io.write("BENCH first_error " .. first:sub(1, 300):gsub("[\r\n]", " ") .. "\n")
  end
end

return M
