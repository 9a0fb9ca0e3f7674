-- GetItem of a random preloaded key; a reply without the item counts as an error.
local bench = dofile(debug.getinfo(1, "S").source:match("^@(.-)[^/]*$") .. "common.lua")
local prefix

bench.workload {
  target = "GetItem",
  init = function() prefix = '{"TableName":"' .. bench.table .. '","Key":{"pk":{"S":"k' end,
  body = function() return prefix .. bench.random_index() .. '"}}}' end,
  check = function(body) return body:find('"Item"', 1, true) ~= nil end,
}
