"""Pages of items (Query, Scan, ExecuteStatement) cut to what an agent's context takes.

A page whose JSON is larger than the cap is asked for again with Limit set to the items that
fit: DynamoDB's own LastEvaluatedKey (or NextToken) then marks where the next page starts,
right for indexes, projections and filters alike, where a key made up here could be wrong.
Every page holds at least one item, however large (400 KB at most)."""
from __future__ import annotations

from okura.mcp.backend import Okura, dumps

_ROOM = 200  # bytes kept for the note


def page(okura: Okura, operation: str, cap: int, params: dict) -> str:
    reply = okura.call(operation, **params)
    text = dumps(reply)
    items = reply.get("Items") or []
    if len(text) <= cap or len(items) <= 1:
        return text
    budget = cap - _ROOM - len(dumps({k: v for k, v in reply.items() if k != "Items"}))
    fit = 0
    for item in items:
        budget -= len(dumps(item)) + 1
        if budget < 0:
            break
        fit += 1
    fit = max(fit, 1)
    reply = okura.call(operation, **{**params, "Limit": fit})
    follow = ("pass NextToken as next_token" if operation == "ExecuteStatement"
              else "pass LastEvaluatedKey as exclusive_start_key")
    reply["Note"] = (f"page cut to {fit} evaluated items to stay within {cap} bytes; "
                     f"{follow} for the next page")
    return dumps(reply)
