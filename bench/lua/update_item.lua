-- UpdateItem as an atomic counter: ADD 1 to one of the table's counters, return the new value.
local bench = dofile(debug.getinfo(1, "S").source:match("^@(.-)[^/]*$") .. "common.lua")
local prefix
local suffix = '"}},"UpdateExpression":"ADD #c :one","ExpressionAttributeNames":{"#c":"count"},'
  .. '"ExpressionAttributeValues":{":one":{"N":"1"}},"ReturnValues":"UPDATED_NEW"}'

bench.workload {
  target = "UpdateItem",
  init = function() prefix = '{"TableName":"' .. bench.table .. '","Key":{"pk":{"S":"c' end,
  body = function() return prefix .. bench.random_index() .. suffix end,
  check = function(body) return body:find('"count"', 1, true) ~= nil end,
}
