-- 80 % GetItem of a random preloaded key, 20 % PutItem under a fresh key.
-- Replies are checked by status only: wrk does not tell response() which request it answers.
local bench = dofile(debug.getinfo(1, "S").source:match("^@(.-)[^/]*$") .. "common.lua")
local get_prefix, put_prefix

bench.workload {
  target = "GetItem",
  init = function()
    get_prefix = '{"TableName":"' .. bench.table .. '","Key":{"pk":{"S":"k'
    put_prefix = '{"TableName":"' .. bench.table .. '","Item":'
  end,
  body = function()
    if math.random() < 0.8 then
      return get_prefix .. bench.random_index() .. '"}}}'
    end
    return put_prefix .. bench.item(bench.fresh_key()) .. "}", "PutItem"
  end,
}
