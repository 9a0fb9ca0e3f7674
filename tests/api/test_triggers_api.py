"""Lambda's event-source-mapping API on okura's endpoint, through boto3's lambda
client (and raw HTTP where boto3 checks first): shapes, defaults, states, errors,
and mappings declared in okura.toml."""
from __future__ import annotations

import http.client
import json

import pytest
from botocore.exceptions import ClientError
from conftest import Server, error_of
from test_streams import stream_table
from triggers_common import config, keys_delivered, put_many, wait_for

ACCOUNT = "000000000000"
FUNCTION_ARN = f"arn:aws:lambda:us-east-1:{ACCOUNT}:function:collect"


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    return str(tmp_path_factory.mktemp("trigger-out"))


@pytest.fixture(scope="module")
def node(tmp_path_factory, out):
    """One server, in memory: the API keeps mappings as documents in storage, which
    the delivery tests (test_triggers_delivery.py) create, update, list and delete on
    every backend."""
    extra = ('\n[[event_source_mappings]]\nfunction = "collect"\ntable = "configured-orders"\n'
             'starting_position = "TRIM_HORIZON"\nbatch_size = 7\n'
             'filters = [\'{"dynamodb": {"Keys": {"pk": {"S": [{"prefix": "k"}]}}}}\']\n')
    path = config(tmp_path_factory.mktemp("trigger-config"), out, extra)
    server = Server("--config", path, "--trigger-interval", "0.05")
    yield server
    server.stop()


@pytest.fixture(scope="module")
def ddb(node):
    return node.client()


@pytest.fixture(scope="module")
def lam(node):
    return node.client("lambda")


def state_of(lam, mapping_uuid: str) -> str:
    return lam.get_event_source_mapping(UUID=mapping_uuid)["State"]


def settled(lam, mapping_uuid: str, state: str) -> None:
    wait_for(lambda: state_of(lam, mapping_uuid) == state, what=f"state {state}")


def test_create_get_list_update_delete(ddb, lam):
    _, arn = stream_table(ddb)
    created = lam.create_event_source_mapping(FunctionName="collect", EventSourceArn=arn,
                                              StartingPosition="LATEST")
    assert created["ResponseMetadata"]["HTTPStatusCode"] == 202
    mapping_uuid = created["UUID"]
    assert len(mapping_uuid) == 36
    shown = {k: v for k, v in created.items() if k not in ("ResponseMetadata", "LastModified")}
    assert shown == {
        "UUID": mapping_uuid, "StartingPosition": "LATEST", "BatchSize": 100,
        "MaximumBatchingWindowInSeconds": 0, "ParallelizationFactor": 1,
        "EventSourceArn": arn, "FunctionArn": FUNCTION_ARN,
        "LastProcessingResult": "No records processed", "State": "Creating",
        "StateTransitionReason": "USER_INITIATED", "DestinationConfig": {"OnFailure": {}},
        "MaximumRecordAgeInSeconds": -1, "BisectBatchOnFunctionError": False,
        "MaximumRetryAttempts": -1, "TumblingWindowInSeconds": 0, "FunctionResponseTypes": [],
        "EventSourceMappingArn":
            f"arn:aws:lambda:us-east-1:{ACCOUNT}:event-source-mapping:{mapping_uuid}"}
    settled(lam, mapping_uuid, "Enabled")
    listed = lam.list_event_source_mappings(EventSourceArn=arn)["EventSourceMappings"]
    assert [m["UUID"] for m in listed] == [mapping_uuid]
    assert [m["UUID"] for m in lam.list_event_source_mappings(
        FunctionName=FUNCTION_ARN, EventSourceArn=arn)["EventSourceMappings"]] == [mapping_uuid]
    assert lam.list_event_source_mappings(FunctionName="partial", EventSourceArn=arn)[
        "EventSourceMappings"] == []

    updated = lam.update_event_source_mapping(UUID=mapping_uuid, BatchSize=5,
                                              FunctionName="partial")
    assert (updated["State"], updated["BatchSize"], updated["FunctionArn"]) == (
        "Updating", 5, FUNCTION_ARN.replace("collect", "partial"))
    settled(lam, mapping_uuid, "Enabled")
    assert lam.update_event_source_mapping(UUID=mapping_uuid, Enabled=False)["State"] == \
        "Disabling"
    settled(lam, mapping_uuid, "Disabled")
    assert lam.update_event_source_mapping(UUID=mapping_uuid, Enabled=True)["State"] == \
        "Enabling"
    settled(lam, mapping_uuid, "Enabled")

    deleted = lam.delete_event_source_mapping(UUID=mapping_uuid)
    assert deleted["ResponseMetadata"]["HTTPStatusCode"] == 202
    assert deleted["State"] == "Deleting"

    def gone():
        try:
            lam.get_event_source_mapping(UUID=mapping_uuid)
        except ClientError as error:
            return error.response["Error"]["Code"] == "ResourceNotFoundException"
        return False

    wait_for(gone, what="deletion")
    with pytest.raises(ClientError) as excinfo:
        lam.get_event_source_mapping(UUID=mapping_uuid)
    assert error_of(excinfo) == ("ResourceNotFoundException",
                                 "The resource you requested does not exist.")
    assert excinfo.value.response["ResponseMetadata"]["HTTPStatusCode"] == 404


def refused(call, **params) -> tuple[str, str, int]:
    with pytest.raises(ClientError) as excinfo:
        call(**params)
    code, message = error_of(excinfo)
    return code, message, excinfo.value.response["ResponseMetadata"]["HTTPStatusCode"]


def test_create_errors(node, ddb, lam):
    _, arn = stream_table(ddb)
    create = lam.create_event_source_mapping
    assert refused(create, FunctionName="missing", EventSourceArn=arn,
                   StartingPosition="LATEST") == (
        "ResourceNotFoundException",
        f"Function not found: arn:aws:lambda:us-east-1:{ACCOUNT}:function:missing", 404)
    gone = arn.replace("/stream/", "-gone/stream/")
    assert refused(create, FunctionName="collect", EventSourceArn=gone,
                   StartingPosition="LATEST") == (
        "InvalidParameterValueException",
        f"Cannot access stream {gone}. Please ensure the role can perform the GetRecords, "
        "GetShardIterator, DescribeStream, and ListStreams Actions on your stream in IAM.", 400)
    _, theirs = stream_table(node.client(region="eu-west-1"))  # another region's stream
    assert refused(create, FunctionName="collect", EventSourceArn=theirs,
                   StartingPosition="LATEST") == (
        "InvalidParameterValueException",
        f"Cannot access stream {theirs}. Please ensure the role can perform the GetRecords, "
        "GetShardIterator, DescribeStream, and ListStreams Actions on your stream in IAM.", 400)
    queue = f"arn:aws:sqs:us-east-1:{ACCOUNT}:queue"
    assert refused(create, FunctionName="collect", EventSourceArn=queue)[:2] == (
        "InvalidParameterValueException", "Unrecognized event source, must be kinesis, "
        f"dynamodb stream or sqs. Unsupported source arn : {queue}")
    assert refused(create, FunctionName="collect", EventSourceArn=arn,
                   StartingPosition="LATEST", FilterCriteria={"Filters": [
                       {"Pattern": '{"eventName": "INSERT"}'}]})[:2] == (
        "InvalidParameterValueException", "Invalid filter pattern definition.")
    created = create(FunctionName=FUNCTION_ARN, EventSourceArn=arn,
                     StartingPosition="TRIM_HORIZON")
    assert refused(create, FunctionName="collect", EventSourceArn=arn,
                   StartingPosition="LATEST") == (
        "ResourceConflictException",
        f'The event source arn (" {arn} ") and function (" collect ") provided mapping '
        f"already exists. Please update or delete the existing mapping with UUID "
        f"{created['UUID']}", 409)
    lam.delete_event_source_mapping(UUID=created["UUID"])


def raw(node, method: str, path: str, body: dict | None = None) -> tuple[int, dict, dict]:
    """A Lambda API request as boto3 would sign it, without boto3's own checks."""
    connection = http.client.HTTPConnection("127.0.0.1", node.port, timeout=10)
    headers = {"Authorization": "AWS4-HMAC-SHA256 Credential=AKID/20260101/eu-west-1/lambda/"
                                "aws4_request, SignedHeaders=host, Signature=abc",
               "Content-Type": "application/json"}
    try:
        connection.request(method, path, json.dumps(body).encode() if body else None, headers)
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, json.loads(
            response.read())
    finally:
        connection.close()


def test_validation_errors_in_corals_form(node, ddb):
    _, arn = stream_table(ddb)
    status, headers, body = raw(node, "POST", "/2015-03-31/event-source-mappings/", {
        "FunctionName": "collect", "EventSourceArn": arn, "StartingPosition": "LATEST",
        "BatchSize": 0, "ParallelizationFactor": 11})
    assert (status, headers["x-amzn-errortype"]) == (400, "ValidationException")
    assert body == {"Type": "User", "message": (
        "2 validation errors detected: Value '0' at 'batchSize' failed to satisfy constraint: "
        "Member must have value greater than or equal to 1; Value '11' at "
        "'parallelizationFactor' failed to satisfy constraint: Member must have value less "
        "than or equal to 10")}
    # the region is the signature's: a mapping made in eu-west-1 is listed there only
    status, _, body = raw(node, "GET", "/2015-03-31/event-source-mappings/?MaxItems=5")
    assert status == 200 and body == {"EventSourceMappings": []}
    status, headers, body = raw(node, "GET", "/2015-03-31/event-source-mappings/" + "0" * 36)
    assert (status, headers["x-amzn-errortype"], body["message"]) == (
        404, "ResourceNotFoundException", "The resource you requested does not exist.")


def test_list_pages_with_markers(ddb, lam):
    _, arn = stream_table(ddb)
    made = {lam.create_event_source_mapping(FunctionName=name, EventSourceArn=arn,
                                            StartingPosition="LATEST")["UUID"]
            for name in ("collect", "partial", "windowed")}
    seen, marker = [], None
    while True:
        page = lam.list_event_source_mappings(EventSourceArn=arn, MaxItems=2,
                                              **({"Marker": marker} if marker else {}))
        assert len(page["EventSourceMappings"]) <= 2
        seen += [m["UUID"] for m in page["EventSourceMappings"]]
        marker = page.get("NextMarker")
        if not marker:
            break
    assert sorted(seen) == sorted(made)
    for mapping_uuid in made:
        lam.delete_event_source_mapping(UUID=mapping_uuid)


def test_okura_toml_mapping_follows_its_table(node, ddb, lam, out):
    name = "configured-orders"
    ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                     StreamSpecification={"StreamEnabled": True,
                                          "StreamViewType": "NEW_IMAGE"})
    put_many(ddb, name, [{"pk": {"S": key}} for key in [f"k{i}" for i in range(10)] + ["x"]])
    arn = ddb.describe_table(TableName=name)["Table"]["LatestStreamArn"]
    found = wait_for(lambda: lam.list_event_source_mappings(EventSourceArn=arn)[
        "EventSourceMappings"], what="the configured mapping")
    assert (found[0]["FunctionArn"], found[0]["BatchSize"]) == (FUNCTION_ARN, 7)
    assert found[0]["FilterCriteria"]["Filters"][0]["Pattern"].startswith('{"dynamodb"')
    put_many(ddb, name, [{"pk": {"S": "k-last"}}])  # delivered after "x" would have been
    wait_for(lambda: "k-last" in keys_delivered(out, name))
    assert sorted(keys_delivered(out, name)) == sorted([f"k{i}" for i in range(10)] + ["k-last"])


def test_auth_enforce_refuses_lambdas_api(tmp_path):
    auth = tmp_path / "auth.json"
    auth.write_text(json.dumps({"users": [{"name": "u", "access_key_id": "AKIDEXAMPLE",
                                           "secret_access_key": "secret", "policies": []}]}))
    node = Server("--auth", "enforce", "--auth-config", str(auth))
    try:
        status, headers, body = raw(node, "GET", "/2015-03-31/event-source-mappings/")
        assert (status, headers["x-amzn-errortype"], body["message"]) == (
            403, "AccessDeniedException", "okura does not verify Lambda API requests: with "
            "--auth enforce, declare event source mappings in okura.toml")
    finally:
        node.stop()
