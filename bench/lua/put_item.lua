-- PutItem of a ~200 B item under a fresh key per request.
local bench = dofile(debug.getinfo(1, "S").source:match("^@(.-)[^/]*$") .. "common.lua")
local prefix

bench.workload {
  target = "PutItem",
  init = function() prefix = '{"TableName":"' .. bench.table .. '","Item":' end,
  body = function() return prefix .. bench.item(bench.fresh_key()) .. "}" end,
}
