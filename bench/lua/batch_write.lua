-- BatchWriteItem of 25 fresh ~200 B items; unprocessed items count as an error.
local bench = dofile(debug.getinfo(1, "S").source:match("^@(.-)[^/]*$") .. "common.lua")
local prefix
local puts = {}

bench.workload {
  target = "BatchWriteItem",
  init = function() prefix = '{"RequestItems":{"' .. bench.table .. '":[' end,
  body = function()
    for i = 1, 25 do
      puts[i] = '{"PutRequest":{"Item":' .. bench.item(bench.fresh_key()) .. '}}'
    end
    return prefix .. table.concat(puts, ",") .. "]}}"
  end,
  check = function(body) return body:find('"UnprocessedItems"%s*:%s*{%s*"') == nil end,
}
