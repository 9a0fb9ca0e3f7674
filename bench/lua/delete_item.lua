-- DeleteItem of a random preloaded key (present at first, then mostly gone: a delete of
-- an absent item is still a full write), returning the item it deleted.
local bench = dofile(debug.getinfo(1, "S").source:match("^@(.-)[^/]*$") .. "common.lua")
local prefix

bench.workload {
  target = "DeleteItem",
  init = function() prefix = '{"TableName":"' .. bench.table .. '","Key":{"pk":{"S":"k' end,
  body = function() return prefix .. bench.random_index() .. '"}},"ReturnValues":"ALL_OLD"}' end,
  check = function(body) return body:sub(1, 1) == "{" end,
}
