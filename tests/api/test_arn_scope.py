"""A table or stream named by ARN is found only in the request's own partition, region
and account (issue 28): an ARN of any other names nothing this request may reach, in
every operation that takes one, PartiQL included. Another region's table of the same
name stands by to show that nothing of it is read or written."""
from __future__ import annotations

import pytest
from botocore.exceptions import ClientError
from conftest import error_of, unique_name
from test_streams import KEY, stream_table

NOT_FOUND = ("ResourceNotFoundException", "Requested resource not found")


@pytest.fixture(scope="module")
def elsewhere(server):
    """A client of another region of the same server."""
    return server.client(region="eu-west-1")


def foreign(arn: str) -> list[str]:
    """The ARN with another region, account or partition."""
    _, partition, service, region, account, rest = arn.split(":", 5)
    return [":".join(("arn", p, service, r, a, rest)) for p, r, a in (
        (partition, "eu-west-1", account), (partition, region, "111122223333"),
        ("aws-cn", region, account))]


def test_a_table_arn_of_another_region_account_or_partition_names_no_table(ddb, elsewhere):
    name = unique_name()
    for client in (ddb, elsewhere):
        client.create_table(TableName=name, KeySchema=KEY, BillingMode="PAY_PER_REQUEST",
                            AttributeDefinitions=[{"AttributeName": "pk",
                                                  "AttributeType": "S"}])
    elsewhere.put_item(TableName=name, Item={"pk": {"S": "theirs"}})
    ddb.put_item(TableName=name, Item={"pk": {"S": "ours"}})
    arn = ddb.describe_table(TableName=name)["Table"]["TableArn"]
    key = {"pk": {"S": "theirs"}}
    assert ddb.get_item(TableName=arn, Key={"pk": {"S": "ours"}})["Item"]  # its own ARN serves
    for other in foreign(arn):
        calls = [
            lambda: ddb.get_item(TableName=other, Key=key),
            lambda: ddb.put_item(TableName=other, Item={"pk": {"S": "written"}}),
            lambda: ddb.update_item(TableName=other, Key=key, UpdateExpression="SET v = :v",
                                    ExpressionAttributeValues={":v": {"N": "1"}}),
            lambda: ddb.delete_item(TableName=other, Key=key),
            lambda: ddb.query(TableName=other, KeyConditionExpression="pk = :k",
                              ExpressionAttributeValues={":k": {"S": "theirs"}}),
            lambda: ddb.scan(TableName=other),
            lambda: ddb.batch_get_item(RequestItems={other: {"Keys": [key]}}),
            lambda: ddb.batch_write_item(RequestItems={other: [
                {"PutRequest": {"Item": {"pk": {"S": "written"}}}}]}),
            lambda: ddb.transact_get_items(TransactItems=[
                {"Get": {"TableName": other, "Key": key}}]),
            lambda: ddb.transact_write_items(TransactItems=[
                {"Put": {"TableName": other, "Item": {"pk": {"S": "written"}}}}]),
            lambda: ddb.execute_statement(Statement=f'SELECT * FROM "{other}"'),
            lambda: ddb.execute_statement(Statement=f"INSERT INTO \"{other}\" VALUE "
                                                    "{'pk': 'written'}"),
            lambda: ddb.create_table(TableName=other, KeySchema=KEY,
                                     BillingMode="PAY_PER_REQUEST",
                                     AttributeDefinitions=[{"AttributeName": "pk",
                                                            "AttributeType": "S"}]),
        ]
        for call in calls:
            with pytest.raises(ClientError) as excinfo:
                call()
            assert error_of(excinfo) == NOT_FOUND
        # as a table that does not exist, by the operation's own words
        control = [
            (lambda: ddb.describe_table(TableName=other), NOT_FOUND[0],
             f"Requested resource not found: Table: {name} not found"),
            (lambda: ddb.describe_time_to_live(TableName=other), NOT_FOUND[0],
             f"Requested resource not found: Table: {name} not found"),
            (lambda: ddb.update_table(TableName=other, BillingMode="PAY_PER_REQUEST"),
             NOT_FOUND[0], f"Requested resource not found: Table: {name} not found"),
            (lambda: ddb.delete_table(TableName=other), NOT_FOUND[0],
             f"Requested resource not found: Table: {name} not found"),
            (lambda: ddb.describe_continuous_backups(TableName=other),
             "TableNotFoundException", f"Table not found: {name}"),
            (lambda: ddb.create_backup(TableName=other, BackupName="bak"),
             "TableNotFoundException", f"Table not found: {name}"),
        ]
        for call, code, message in control:
            with pytest.raises(ClientError) as excinfo:
                call()
            assert error_of(excinfo) == (code, message)
        assert ddb.list_backups(TableName=other)["BackupSummaries"] == []
        with pytest.raises(ClientError) as excinfo:
            ddb.list_tags_of_resource(ResourceArn=other)
        assert error_of(excinfo) == ("ResourceNotFoundException", "Requested resource not "
                                     f"found: ResourcArn: {other} not found")
    assert [i["pk"]["S"] for i in elsewhere.scan(TableName=name)["Items"]] == ["theirs"]
    assert [i["pk"]["S"] for i in ddb.scan(TableName=name)["Items"]] == ["ours"]


def test_a_stream_arn_of_another_region_account_or_partition_names_no_stream(
        server, ddb, elsewhere):
    name, theirs = stream_table(elsewhere)
    elsewhere.put_item(TableName=name, Item={"pk": {"S": "theirs"}})
    their_streams = server.client("dynamodbstreams", region="eu-west-1")
    shard = their_streams.describe_stream(
        StreamArn=theirs)["StreamDescription"]["Shards"][0]["ShardId"]
    iterator = their_streams.get_shard_iterator(
        StreamArn=theirs, ShardId=shard, ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    ours = server.client("dynamodbstreams")
    own_arn = stream_table(ddb)[1]
    for arn in [theirs, *foreign(own_arn)[1:]]:
        message = f"Requested resource not found: Stream: {arn} not found"
        for call in (lambda: ours.describe_stream(StreamArn=arn),
                     lambda: ours.get_shard_iterator(StreamArn=arn, ShardId=shard,
                                                     ShardIteratorType="TRIM_HORIZON")):
            with pytest.raises(ClientError) as excinfo:
                call()
            assert error_of(excinfo) == ("ResourceNotFoundException", message)
    with pytest.raises(ClientError) as excinfo:  # an iterator made in eu-west-1
        ours.get_records(ShardIterator=iterator)
    assert error_of(excinfo) == ("ResourceNotFoundException",
                                 f"Requested resource not found: Stream: {theirs} not found")
    assert len(their_streams.get_records(ShardIterator=iterator)["Records"]) == 1


@pytest.mark.parametrize("region,partition", [
    ("us-east-1", "aws"), ("cn-north-1", "aws-cn"), ("us-gov-west-1", "aws-us-gov")])
def test_arns_carry_their_regions_partition(server, region, partition):
    client = server.client(region=region)
    streams = server.client("dynamodbstreams", region=region)
    name = unique_name()
    client.create_table(
        TableName=name, KeySchema=KEY, BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        GlobalSecondaryIndexes=[{"IndexName": "again", "KeySchema": KEY,
                                 "Projection": {"ProjectionType": "KEYS_ONLY"}}],
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"},
        SSESpecification={"Enabled": True, "SSEType": "KMS"})
    client.put_item(TableName=name, Item={"pk": {"S": "a"}})
    table = client.describe_table(TableName=name)["Table"]
    arn = table["TableArn"]
    assert arn == f"arn:{partition}:dynamodb:{region}:000000000000:table/{name}"
    assert table["GlobalSecondaryIndexes"][0]["IndexArn"] == arn + "/index/again"
    assert table["LatestStreamArn"] == f"{arn}/stream/{table['LatestStreamLabel']}"
    assert table["SSEDescription"]["KMSMasterKeyArn"] == \
        f"arn:{partition}:kms:{region}:000000000000:alias/aws/dynamodb"
    # each is addressed by its ARN, and only in its own partition
    assert client.get_item(TableName=arn, Key={"pk": {"S": "a"}})["Item"]
    client.tag_resource(ResourceArn=arn, Tags=[{"Key": "k", "Value": "v"}])
    assert client.list_tags_of_resource(ResourceArn=arn)["Tags"] == [{"Key": "k", "Value": "v"}]
    described = streams.describe_stream(StreamArn=table["LatestStreamArn"])["StreamDescription"]
    assert described["TableName"] == name
    listed = streams.list_streams(TableName=name)["Streams"]
    assert [s["StreamArn"] for s in listed] == [table["LatestStreamArn"]]
    backup = client.create_backup(TableName=arn, BackupName="bak")["BackupDetails"]["BackupArn"]
    assert backup.startswith(arn + "/backup/")
    assert client.describe_backup(BackupArn=backup)["BackupDescription"]["BackupDetails"][
        "BackupArn"] == backup
    other = "aws-cn" if partition != "aws-cn" else "aws"
    with pytest.raises(ClientError) as excinfo:
        client.get_item(TableName=arn.replace(f"arn:{partition}:", f"arn:{other}:"),
                        Key={"pk": {"S": "a"}})
    assert error_of(excinfo) == NOT_FOUND
