"""Tools that tell how a table is doing: the design advisor's findings and cost, its recent
metrics, and the records of its stream."""
from __future__ import annotations

from typing import Annotated, Iterator

from pydantic import Field

from okura.mcp.backend import dumps
from okura.mcp.toolkit import Setup, TableName, tool

_PERIOD = 60.0  # seconds of a metrics point (docs/admin.md)


class Observe:
    def __init__(self, setup: Setup):
        self.setup = setup
        self.okura = setup.okura

    @tool(read_only=True)
    def advise_table(self, table_name: TableName, sample: Annotated[int, Field(
            ge=0, description="items to sample for the data rules (0: none)")] = 1000) -> str:
        """Check a table against DynamoDB design guidelines: findings to fix, monthly cost."""
        self.okura.call("DescribeTable", TableName=table_name)  # DynamoDB's error if absent
        report = self.okura.admin("GET", "advice", region=self.okura.region, sample=sample)
        cost = report["cost"]
        return dumps({
            "findings": [f for f in report["findings"] if f["table"] == table_name],
            "cost": {**{k: v for k, v in cost.items() if k not in ("tables", "total")},
                     "table": next((t for t in cost["tables"] if t["table"] == table_name),
                                   None)}})

    @tool(read_only=True)
    def table_metrics(self, table_name: TableName, minutes: Annotated[int, Field(
            ge=1, le=60, description="how many of the last minutes")] = 5) -> str:
        """A table's requests, latency, consumed capacity and throttles, minute by minute."""
        self.okura.call("DescribeTable", TableName=table_name)
        series = self.okura.admin("GET", "metrics", table=table_name, region=self.okura.region)
        since = series["now"] - minutes * _PERIOD
        points = [p for p in series["points"] if p["start"] + _PERIOD > since]
        consumed: dict[str, dict[str, float]] = {}
        for point in points:
            for owner, units in point["consumed"].items():
                total = consumed.setdefault(owner or table_name, {"read": 0.0, "write": 0.0})
                for kind in total:
                    total[kind] += units.get(kind, 0.0)
        return dumps({"table": table_name, "now": series["now"], "minutes": minutes,
                      "consumed_capacity": consumed,
                      "throttled_requests": sum(p["throttled_requests"] for p in points),
                      "points": points})

    @tool(read_only=True)
    def stream_records(self, table_name: TableName, after: Annotated[dict[str, str] | None, Field(
                           description="the 'next' of the previous call: {shard id: last "
                                       "sequence number read}")] = None,
                       limit: Annotated[int, Field(ge=1, le=1000,
                                                   description="records at most")] = 100) -> str:
        """Read a table's stream records (oldest first), paged with 'next'."""
        table = self.okura.call("DescribeTable", TableName=table_name)["Table"]
        arn = table.get("LatestStreamArn")
        if not arn:
            return dumps({"Records": [], "Note": f"table {table_name} has no stream: "
                          "enable one with StreamSpecification (UpdateTable)"})
        shards = self.okura.stream_call("DescribeStream", StreamArn=arn)
        cap = self.setup.max_output
        seen = dict(after or {})
        records: list = []
        size = len(dumps({"Records": [], "next": seen}))
        for shard in shards["StreamDescription"]["Shards"]:
            shard_id = shard["ShardId"]
            for record in self._records(arn, shard_id, seen.get(shard_id), limit):
                number = record["dynamodb"]["SequenceNumber"]
                size += len(dumps(record)) + 1 + len(dumps({shard_id: number}))
                if len(records) == limit or (records and size > cap):
                    return dumps({"Records": records, "next": seen})
                records.append(record)
                seen[shard_id] = number
        return dumps({"Records": records, "next": seen})

    def _records(self, arn: str, shard_id: str, after: str | None,
                 limit: int) -> Iterator[dict]:
        """A shard's records after sequence number `after` (None: from its oldest)."""
        start = ({"ShardIteratorType": "TRIM_HORIZON"} if after is None else
                 {"ShardIteratorType": "AFTER_SEQUENCE_NUMBER", "SequenceNumber": after})
        iterator = self.okura.stream_call("GetShardIterator", StreamArn=arn, ShardId=shard_id,
                                          **start).get("ShardIterator")
        while iterator:
            reply = self.okura.stream_call("GetRecords", ShardIterator=iterator, Limit=limit)
            if not reply["Records"]:
                return
            yield from reply["Records"]
            iterator = reply.get("NextShardIterator")
