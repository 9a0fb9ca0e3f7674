-- Query of one random partition holding 10 items; any other count is an error.
local bench = dofile(debug.getinfo(1, "S").source:match("^@(.-)[^/]*$") .. "common.lua")
local prefix

bench.workload {
  target = "Query",
  init = function()
    prefix = '{"TableName":"' .. bench.table
      .. '","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"p'
  end,
  body = function() return prefix .. bench.random_index() .. '"}}}' end,
  check = function(body) return body:find('"Count"%s*:%s*10[,}%s]') ~= nil end,
}
