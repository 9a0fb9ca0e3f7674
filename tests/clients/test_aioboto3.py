"""aioboto3 against okura: an async client and resource from asyncio code. Skipped when
aioboto3 is not installed: it is not in the test extra, because every aioboto3 release
pins an aiobotocore that pins botocore below the boto3 this suite needs
(docs/decisions.md). `pip install aioboto3` in an environment of its own runs it."""
from __future__ import annotations

import asyncio

import pytest
from clients_common import endpoint  # noqa: F401 - a fixture

aioboto3 = pytest.importorskip(
    "aioboto3", reason="aioboto3 is not installed (not in the test extra: its aiobotocore "
                       "pins an older botocore than this suite's boto3)")


def test_aioboto3_client_and_resource(endpoint):
    async def main():
        session = aioboto3.Session(aws_access_key_id="any", aws_secret_access_key="any",
                                   region_name="us-east-1")
        async with session.client("dynamodb", endpoint_url=endpoint) as ddb:
            await ddb.create_table(
                TableName="aio-things", BillingMode="PAY_PER_REQUEST",
                KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])
            await ddb.get_waiter("table_exists").wait(TableName="aio-things")
            await asyncio.gather(*(ddb.put_item(TableName="aio-things",
                                                Item={"pk": {"S": f"k{n}"}, "n": {"N": str(n)}})
                                   for n in range(20)))
            paginator = ddb.get_paginator("scan")
            pages = [page async for page in paginator.paginate(
                TableName="aio-things", PaginationConfig={"PageSize": 6})]
        async with session.resource("dynamodb", endpoint_url=endpoint) as resource:
            table = await resource.Table("aio-things")
            got = (await table.get_item(Key={"pk": "k7"}))["Item"]
            await table.delete()
        return pages, got

    pages, got = asyncio.run(main())
    assert [len(page["Items"]) for page in pages] == [6, 6, 6, 2]
    assert got == {"pk": "k7", "n": 7}
