"""ConsumedCapacity figures of every operation, pinned to the billing rules of the
DynamoDB documentation. Each test names the page and quotes the rule it pins; the
figures are worked out by hand in comments from items of exact sizes.

Pages relied on (developer guide unless said otherwise):
  [sizes]  "DynamoDB item sizes and formats" (CapacityUnitCalculations)
  [rw]     "DynamoDB read and write operations" (read-write-operations), formerly
           "Managing settings on DynamoDB provisioned capacity tables" /
           "Capacity unit consumption for reads/writes" (ProvisionedThroughput)
  [query]  "Querying tables in DynamoDB" (Query: filter expressions, capacity units)
  [scan]   "Scanning tables in DynamoDB" (Scan: capacity units)
  [lsi]    "Local secondary indexes", "Provisioned throughput considerations"
  [gsi]    "Global secondary indexes", "Provisioned throughput considerations"
  [tx]     "Amazon DynamoDB Transactions: how it works", "Capacity management"
  [api]    API reference: ConsumedCapacity, Capacity, ReturnConsumedCapacity,
           TransactWriteItems, ExecuteTransaction (which refers to TransactGetItems
           and TransactWriteItems for ReturnConsumedCapacity), BatchExecuteStatement
           ("Running batch operations with PartiQL")
  [ql]     "PartiQL select statements for DynamoDB"

What the documentation leaves open is deliberately not asserted:
  - whether a ConditionalCheckFailedException reply carries ConsumedCapacity (the
    exception's documented members are `message` and `Item` only); so the documented
    rule that a failed conditional write still consumes write units ([rw]) cannot be
    observed through the API and is not tested here;
  - what a ConditionCheck in TransactWriteItems costs ([tx] and [api] are silent);
  - whether index writes made by a transaction are doubled like the item writes;
  - whether Table is listed (with 0) under INDEXES when nothing was spent on the
    table, and whether an index a write left untouched is listed (with 0): a missing
    entry is read as 0 here;
  - how an LSI read or an LSI write is split between `Table` and
    `LocalSecondaryIndexes` (LSI reads "consume ... from the base table's provisioned
    read capacity" [query]): only the totals and, for writes, the index's own entry;
  - whether ReadCapacityUnits / WriteCapacityUnits accompany CapacityUnits: the API
    reference lists them as optional ("Required: No"), so they are checked only for
    consistency when present (the read figure of a read is all of it, the write
    figure of a write is all of it, and the other kind is absent or 0);
  - the 100 bytes of per-item overhead the index pages add for *storage*: index
    entries here are sized so that counting it or not gives the same figure.
"""
from __future__ import annotations

import pytest

from conftest import unique_name

READ, WRITE = "Read", "Write"


# ---------------------------------------------------------------- helpers

def size(item: dict) -> int:
    """[sizes]: "The size of a string is (number of UTF-8-encoded bytes of attribute
    name) + (number of UTF-8-encoded bytes)" -- items here hold strings only."""
    total = 0
    for name, value in item.items():
        (tag, text), = value.items()
        assert tag == "S"
        total += len(name.encode()) + len(text.encode())
    return total


def padded(item: dict, total: int, name: str = "d") -> dict:
    """`item` plus a string attribute `name` bringing it to exactly `total` bytes."""
    fill = total - size(item) - len(name.encode())
    assert fill >= 0, (item, total)
    out = {**item, name: {"S": "x" * fill}}
    assert size(out) == total
    return out


def s(text: str) -> dict:
    return {"S": text}


def _check_kind(capacity: dict, kind: str) -> None:
    """[api] ConsumedCapacity/Capacity: ReadCapacityUnits is "the total number of read
    capacity units consumed", WriteCapacityUnits "the total number of write capacity
    units consumed"; both optional."""
    other = WRITE if kind == READ else READ
    if f"{kind}CapacityUnits" in capacity:
        assert capacity[f"{kind}CapacityUnits"] == capacity["CapacityUnits"]
    assert capacity.get(f"{other}CapacityUnits", 0.0) == 0.0


def consumed(reply: dict, kind: str, table: str | None = None) -> dict:
    """The reply's ConsumedCapacity after the shape checks every figure must pass."""
    capacity = reply["ConsumedCapacity"]
    if table is not None:
        assert capacity["TableName"] == table
    _check_kind(capacity, kind)
    for part in [capacity.get("Table")] + [
            *capacity.get("GlobalSecondaryIndexes", {}).values(),
            *capacity.get("LocalSecondaryIndexes", {}).values()]:
        if part is not None:
            _check_kind(part, kind)
    return capacity


def units(reply: dict, kind: str, table: str | None = None) -> float:
    return consumed(reply, kind, table)["CapacityUnits"]


def per_table(reply: dict, kind: str) -> dict:
    """{table name: CapacityUnits} of a multi-table reply (a list of ConsumedCapacity)."""
    out = {}
    for capacity in reply["ConsumedCapacity"]:
        _check_kind(capacity, kind)
        assert capacity["TableName"] not in out  # one entry per table
        out[capacity["TableName"]] = capacity["CapacityUnits"]
    return out


def index_units(capacity: dict, group: str, name: str) -> float:
    """An index's CapacityUnits under INDEXES (an absent entry: nothing spent)."""
    return capacity.get(group, {}).get(name, {"CapacityUnits": 0.0})["CapacityUnits"]


def seed(ddb, table: str, items: list[dict]) -> None:
    for start in range(0, len(items), 25):
        reply = ddb.batch_write_item(RequestItems={
            table: [{"PutRequest": {"Item": item}} for item in items[start:start + 25]]})
        assert not reply["UnprocessedItems"]


def create(ddb, schema: list[tuple[str, str]], attributes: dict | None = None,
           **extra) -> str:
    """A PAY_PER_REQUEST table; `schema` is [(name, HASH|RANGE)], every key (table's
    and indexes') a string attribute."""
    name = unique_name()
    names = dict.fromkeys([n for n, _ in schema] + list(attributes or ()))
    ddb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": n, "KeyType": t} for n, t in schema],
        AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"} for n in names],
        **extra)
    return name


@pytest.fixture
def table(ddb) -> str:
    """Hash key `pk`."""
    return create(ddb, [("pk", "HASH")])


@pytest.fixture
def sorted_table(ddb) -> str:
    """Hash key `pk`, sort key `sk`."""
    return create(ddb, [("pk", "HASH"), ("sk", "RANGE")])


KEY = {"pk": s("k")}  # 2 + 1 = 3 bytes


# ---------------------------------------------------------------- item sizes
# PutItem of a new item is the probe: 1 KB granularity ([rw]: "For PutItem, UpdateItem,
# and DeleteItem operations, DynamoDB rounds the item size up to the next 1 KB").

def put_units(ddb, table: str, item: dict) -> float:
    return units(ddb.put_item(TableName=table, Item=item, ReturnConsumedCapacity="TOTAL"),
                 WRITE, table)


@pytest.mark.parametrize("count, expected", [
    (510, 1.0),  # "pk"+"k" 3 + "d" 1 + 510 x 2 bytes = 1024 -> 1 KB
    (511, 2.0),  # 3 + 1 + 1022 = 1026 -> 2 KB (as characters it would be 515 -> 1)
    (600, 2.0),  # 3 + 1 + 1200 = 1204 -> 2 KB (as characters 604 -> 1)
])
def test_string_values_count_utf8_bytes(ddb, table, count, expected):
    """[sizes] "Strings are Unicode with UTF-8 binary encoding. The size of a string is
    (number of UTF-8-encoded bytes of attribute name) + (number of UTF-8-encoded
    bytes)." "é" is two bytes in UTF-8."""
    assert put_units(ddb, table, {**KEY, "d": s("é" * count)}) == expected


@pytest.mark.parametrize("fill, expected", [
    (981, 1.0),  # 3 + "ñ"x20 = 40 bytes + 981 = 1024 -> 1 KB
    (982, 2.0),  # 1025 -> 2 KB (counting the name in characters: 1005 -> 1)
])
def test_attribute_names_count_utf8_bytes(ddb, table, fill, expected):
    """[sizes] the name counts as "number of UTF-8-encoded bytes of attribute name"."""
    assert put_units(ddb, table, {**KEY, "ñ" * 20: s("x" * fill)}) == expected


@pytest.mark.parametrize("raw, expected", [
    (1000, 1.0),  # 3 + "b" 1 + 1000 raw bytes = 1004 -> 1 KB (base64: 1336 chars -> 2)
    (1020, 1.0),  # 1024 -> 1 KB
    (1021, 2.0),  # 1025 -> 2 KB
])
def test_binary_values_count_raw_bytes(ddb, table, raw, expected):
    """[sizes] "A binary value must be encoded in base64 format before it can be sent to
    DynamoDB, but the value's raw byte length is used for calculating size."."""
    assert put_units(ddb, table, {**KEY, "b": {"B": b"\xff" * raw}}) == expected


@pytest.mark.parametrize("kind, fill, expected", [
    # Map "m" holding {"a": S of fill}: 3 (key) + 1 (name) + 3 (overhead)
    #   + (1 "a" + fill + 1 element overhead) = 9 + fill
    ("M", 1015, 1.0),  # 1024
    ("M", 1016, 2.0),  # 1025 (without the element overhead: 1024 -> 1)
    # List "m" holding [S of fill]: 3 + 1 + 3 + (fill + 1) = 8 + fill
    ("L", 1016, 1.0),  # 1024
    ("L", 1017, 2.0),  # 1025 (without the element overhead: 1024 -> 1)
])
def test_list_and_map_overheads(ddb, table, kind, fill, expected):
    """[sizes] "An attribute of type List or Map requires 3 bytes of overhead,
    regardless of its contents." "Each List or Map element also requires 1 byte of
    overhead."."""
    value = {"M": {"a": s("x" * fill)}} if kind == "M" else {"L": [s("x" * fill)]}
    assert put_units(ddb, table, {**KEY, "m": value}) == expected


@pytest.mark.parametrize("fill, expected", [(1016, 1.0), (1017, 2.0)])
def test_boolean_and_null_are_one_byte(ddb, table, fill, expected):
    """[sizes] "The size of a null attribute or a Boolean attribute is (number of
    UTF-8-encoded bytes of attribute name) + (1 byte)."
    3 (key) + "t" 1+1 + "n" 1+1 + "d" 1 + fill = 8 + fill: 1024 -> 1 KB, 1025 -> 2 KB."""
    item = {**KEY, "t": {"BOOL": True}, "n": {"NULL": True}, "d": s("x" * fill)}
    assert put_units(ddb, table, item) == expected


# ---------------------------------------------------------------- GetItem

@pytest.fixture
def tiny_key_table(ddb) -> str:
    """Hash key `k`: the smallest item, {"k": "x"}, is 2 bytes."""
    return create(ddb, [("k", "HASH")])


@pytest.mark.parametrize("total, consistent, expected", [
    (2, False, 0.5), (2, True, 1.0),          # 2 B -> one 4 KB unit
    (4096, False, 0.5), (4096, True, 1.0),    # exactly 4 KB
    (4097, False, 1.0), (4097, True, 2.0),    # just over: 8 KB
    (10 * 1024, True, 3.0),                   # the guide's "item of 10 KB ... 12 KB"
    (10 * 1024, False, 1.5),
])
def test_get_item_rounds_up_to_4_kb(ddb, tiny_key_table, total, consistent, expected):
    """[rw] GetItem: "take the item size and round it up to the next 4 KB boundary. If
    you specified a strongly consistent read, this is the number of capacity units
    required. For an eventually consistent read (the default), divide this number by
    two." Example: "If you read an item of 10 KB, DynamoDB rounds the item size to
    12 KB"."""
    key = {"k": s("x")}
    item = key if total == 2 else padded(key, total)
    ddb.put_item(TableName=tiny_key_table, Item=item)
    reply = ddb.get_item(TableName=tiny_key_table, Key=key, ConsistentRead=consistent,
                         ReturnConsumedCapacity="TOTAL")
    assert reply["Item"] == item
    assert units(reply, READ, tiny_key_table) == expected


@pytest.mark.parametrize("consistent, expected", [(False, 0.5), (True, 1.0)])
def test_get_of_a_missing_item_costs_the_minimum(ddb, table, consistent, expected):
    """[rw] "If you perform a read operation on an item that does not exist, DynamoDB
    still consumes provisioned read throughput: A strongly consistent read request
    consumes one read capacity unit, while an eventually consistent read request
    consumes 0.5 of a read capacity unit."."""
    reply = ddb.get_item(TableName=table, Key=KEY, ConsistentRead=consistent,
                         ReturnConsumedCapacity="TOTAL")
    assert "Item" not in reply
    assert units(reply, READ, table) == expected


def test_projection_does_not_lower_a_get(ddb, table):
    """[rw] "For any operation that returns items, you can request a subset of
    attributes to retrieve; however, doing so has no impact on the item size
    calculations." 5000 B -> 8 KB -> 2 units strongly consistent."""
    ddb.put_item(TableName=table, Item=padded(KEY, 5000))
    reply = ddb.get_item(TableName=table, Key=KEY, ProjectionExpression="pk",
                         ConsistentRead=True, ReturnConsumedCapacity="TOTAL")
    assert reply["Item"] == KEY
    assert units(reply, READ, table) == 2.0


def test_total_mode_reports_only_the_aggregate(ddb, table):
    """[api] ReturnConsumedCapacity: "TOTAL - The response includes only the aggregate
    ConsumedCapacity for the operation."."""
    ddb.put_item(TableName=table, Item=padded(KEY, 100))
    reply = ddb.get_item(TableName=table, Key=KEY, ReturnConsumedCapacity="TOTAL")
    capacity = consumed(reply, READ, table)
    assert capacity["CapacityUnits"] == 0.5
    assert not {"Table", "GlobalSecondaryIndexes", "LocalSecondaryIndexes"} & set(capacity)


# ---------------------------------------------------------------- tables with indexes

@pytest.fixture
def gsi_table(ddb) -> str:
    """Hash key `pk`; three GSIs on `gk`: "keys" (KEYS_ONLY), "incl" (INCLUDE p) and
    "all" (ALL)."""
    def gsi(name: str, projection: dict) -> dict:
        return {"IndexName": name, "KeySchema": [{"AttributeName": "gk", "KeyType": "HASH"}],
                "Projection": projection}
    return create(ddb, [("pk", "HASH")], {"gk": "S"}, GlobalSecondaryIndexes=[
        gsi("keys", {"ProjectionType": "KEYS_ONLY"}),
        gsi("incl", {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["p"]}),
        gsi("all", {"ProjectionType": "ALL"})])


# A small indexed item: pk 3 + gk ("gk"+"g") 3 + p (1 + 50) 51 + q (1 + 100) 101 = 158 B.
# Index entries: keys 6 B, incl 57 B, all 158 B: each one 1 KB write (with or without
# the 100 bytes of storage overhead).
SMALL = {**KEY, "gk": s("g"), "p": s("x" * 50), "q": s("y" * 100)}
GSIS = ("keys", "incl", "all")


def indexed_write(ddb, table: str, operation: str, group="GlobalSecondaryIndexes",
                  names=GSIS, **params) -> dict:
    """{"total", "table" (None under LSIs), each index: units} of a write under INDEXES."""
    reply = getattr(ddb, operation)(TableName=table, ReturnConsumedCapacity="INDEXES", **params)
    capacity = consumed(reply, WRITE, table)
    out = {"total": capacity["CapacityUnits"],
           "table": capacity["Table"]["CapacityUnits"] if group[0] == "G" else None}
    out.update({name: index_units(capacity, group, name) for name in names})
    return out


def test_get_item_indexes_mode_lists_the_table_only(ddb, gsi_table):
    """[api] ReturnConsumedCapacity: "Note that some operations, such as GetItem and
    BatchGetItem, do not access any indexes at all. In these cases, specifying INDEXES
    will only return ConsumedCapacity information for table(s)."."""
    ddb.put_item(TableName=gsi_table, Item=SMALL)
    capacity = consumed(ddb.get_item(TableName=gsi_table, Key=KEY, ConsistentRead=True,
                                     ReturnConsumedCapacity="INDEXES"), READ, gsi_table)
    assert capacity["CapacityUnits"] == 1.0
    assert capacity["Table"]["CapacityUnits"] == 1.0
    assert "GlobalSecondaryIndexes" not in capacity and "LocalSecondaryIndexes" not in capacity


# ---------------------------------------------------------------- PutItem / UpdateItem / DeleteItem

@pytest.mark.parametrize("total, expected", [
    (3, 1.0),                   # the key alone
    (1024, 1.0), (1025, 2.0),   # 1 KB boundary
    (1639, 2.0),                # the guide's "item of 1.6 KB ... rounds ... up to 2 KB"
    (10 * 1024 + 1, 11.0),
])
def test_put_rounds_up_to_1_kb(ddb, table, total, expected):
    """[rw] "For PutItem, UpdateItem, and DeleteItem operations, DynamoDB rounds the item
    size up to the next 1 KB. For example, if you put or delete an item of 1.6 KB,
    DynamoDB rounds the item size up to 2 KB."."""
    item = KEY if total == 3 else padded(KEY, total)
    assert put_units(ddb, table, item) == expected


@pytest.mark.parametrize("old, new, expected", [
    (3000, 10, 3.0),   # replaces a 3000 B item: max(3000, 10) -> 3 KB
    (10, 3000, 3.0),   # replaces a 10 B item: 3 KB
    (2049, 2049, 3.0),
])
def test_put_costs_the_larger_of_the_replaced_and_new_item(ddb, table, old, new, expected):
    """[rw] PutItem: "If an item with the same primary key exists in the table, the
    operation replaces the item. For calculating provisioned throughput consumption,
    the item size that matters is the larger of the two."."""
    ddb.put_item(TableName=table, Item=padded(KEY, old))
    assert put_units(ddb, table, padded(KEY, new)) == expected


@pytest.mark.parametrize("old, new, expected", [
    (None, 1500, 2.0),   # creates the item: 1500 B -> 2 KB
    (1000, 2100, 3.0),   # grows: max(1000, 2100) -> 3 KB
    (2100, 500, 3.0),    # shrinks: max(2100, 500) -> 3 KB
    (900, 1000, 1.0),    # both within 1 KB
])
def test_update_costs_the_larger_of_before_and_after(ddb, table, old, new, expected):
    """[rw] UpdateItem: "DynamoDB considers the size of the item as it appears before
    and after the update. The provisioned throughput consumed reflects the larger of
    these item sizes."."""
    if old is not None:
        ddb.put_item(TableName=table, Item=padded(KEY, old))
    after = padded(KEY, new)
    reply = ddb.update_item(TableName=table, Key=KEY, UpdateExpression="SET d = :d",
                            ExpressionAttributeValues={":d": after["d"]},
                            ReturnConsumedCapacity="TOTAL")
    assert units(reply, WRITE, table) == expected
    assert ddb.get_item(TableName=table, Key=KEY, ConsistentRead=True)["Item"] == after


def test_update_of_a_small_attribute_costs_the_whole_item(ddb, table):
    """[rw] "Even if you update just a subset of the item's attributes, UpdateItem will
    still consume the full amount of provisioned throughput (the larger of the "before"
    and "after" item sizes)." 5000 B + "c"+"y" 2 B = 5002 B -> 5 KB."""
    ddb.put_item(TableName=table, Item=padded(KEY, 5000))
    reply = ddb.update_item(TableName=table, Key=KEY, UpdateExpression="SET c = :c",
                            ExpressionAttributeValues={":c": s("y")},
                            ReturnConsumedCapacity="TOTAL")
    assert units(reply, WRITE, table) == 5.0


@pytest.mark.parametrize("stored, expected", [
    (2049, 3.0),   # the deleted item: 2049 B -> 3 KB
    (1024, 1.0),
    (None, 1.0),   # nothing to delete: the 1 KB minimum
])
def test_delete_costs_the_deleted_item(ddb, table, stored, expected):
    """[rw] DeleteItem: "The provisioned throughput consumption is based on the size of
    the deleted item." and sizes are rounded up to the next 1 KB ("A write capacity
    unit represents one write per second, for an item up to 1 KB in size"): a delete
    of nothing is one unit."""
    if stored is not None:
        ddb.put_item(TableName=table, Item=padded(KEY, stored))
    reply = ddb.delete_item(TableName=table, Key=KEY, ReturnConsumedCapacity="TOTAL")
    assert units(reply, WRITE, table) == expected


@pytest.mark.parametrize("operation, params", [
    ("put_item", {"Item": padded(KEY, 1500)}),
    ("update_item", {"Key": KEY, "UpdateExpression": "SET d = :d",
                     "ExpressionAttributeValues": {":d": s("x" * 1496)}}),
])
def test_indexes_mode_on_a_table_without_indexes(ddb, table, operation, params):
    """[api] "INDEXES - The response includes the aggregate ConsumedCapacity for the
    operation, together with ConsumedCapacity for each table and secondary index that
    was accessed." 1500 B -> 2 KB, all of it on the table."""
    capacity = consumed(getattr(ddb, operation)(TableName=table, ReturnConsumedCapacity="INDEXES",
                                                **params), WRITE, table)
    assert capacity["CapacityUnits"] == 2.0
    assert capacity["Table"]["CapacityUnits"] == 2.0
    assert "GlobalSecondaryIndexes" not in capacity and "LocalSecondaryIndexes" not in capacity


# ---------------------------------------------------------------- GSI writes

def test_gsi_put_of_a_new_item_writes_each_index(ddb, gsi_table):
    """[gsi] "If you write a new item to the table that defines an indexed attribute
    ... one write operation is required to put the item into the index." "The total
    provisioned throughput cost for a write consists of the sum of write capacity units
    consumed by writing to the base table and those consumed by updating the global
    secondary indexes." Item 158 B -> 1; each entry <= 1 KB -> 1."""
    assert indexed_write(ddb, gsi_table, "put_item", Item=SMALL) == {
        "total": 4.0, "table": 1.0, "keys": 1.0, "incl": 1.0, "all": 1.0}


def test_gsi_entries_larger_than_1_kb_cost_more(ddb, gsi_table):
    """[gsi] "All of these factors assume that the size of each item in the index is
    less than or equal to the 1 KB item size for calculating write capacity units.
    Larger index entries will require additional write capacity units."
    Item: pk 3 + gk 3 + p (1 + 1500) 1501 + q (1 + 2293) 2294 = 3801 B -> 4 KB.
    keys entry: 6 B -> 1; incl entry: 6 + 1501 = 1507 B -> 2; all entry: 3801 B -> 4
    (1607 B and 3901 B with 100 bytes of overhead: the same figures)."""
    item = {**KEY, "gk": s("g"), "p": s("x" * 1500), "q": s("y" * 2293)}
    assert size(item) == 3801
    assert indexed_write(ddb, gsi_table, "put_item", Item=item) == {
        "total": 4.0 + 1.0 + 2.0 + 4.0, "table": 4.0, "keys": 1.0, "incl": 2.0, "all": 4.0}


def test_gsi_key_change_is_a_delete_and_a_put(ddb, gsi_table):
    """[gsi] "If an update to the table changes the value of an indexed key attribute
    (from A to B), two writes are required, one to delete the previous item from the
    index and another write to put the new item into the index." Small entries: 2 per
    index; the table item 158 B -> 1."""
    ddb.put_item(TableName=gsi_table, Item=SMALL)
    assert indexed_write(ddb, gsi_table, "update_item", Key=KEY, UpdateExpression="SET gk = :g",
                         ExpressionAttributeValues={":g": s("h")}) == {
        "total": 7.0, "table": 1.0, "keys": 2.0, "incl": 2.0, "all": 2.0}


def test_gsi_projected_attribute_change_is_one_write(ddb, gsi_table):
    """[gsi] "If an update to the table only changes the value of projected attributes
    in the index key schema, but does not change the value of any indexed key
    attribute, then one write is required to update the values of the projected
    attributes into the index." and "if a write to a table does not require a global
    secondary index update, then no write capacity is consumed from the index."
    p is projected into incl and all, not into keys."""
    ddb.put_item(TableName=gsi_table, Item=SMALL)
    assert indexed_write(ddb, gsi_table, "update_item", Key=KEY, UpdateExpression="SET p = :p",
                         ExpressionAttributeValues={":p": s("z" * 50)}) == {
        "total": 3.0, "table": 1.0, "keys": 0.0, "incl": 1.0, "all": 1.0}


def test_gsi_unprojected_attribute_change_costs_the_index_nothing(ddb, gsi_table):
    """[gsi] "Note that if a write to a table does not require a global secondary index
    update, then no write capacity is consumed from the index." q is only in "all"."""
    ddb.put_item(TableName=gsi_table, Item=SMALL)
    assert indexed_write(ddb, gsi_table, "update_item", Key=KEY, UpdateExpression="SET q = :q",
                         ExpressionAttributeValues={":q": s("z" * 100)}) == {
        "total": 2.0, "table": 1.0, "keys": 0.0, "incl": 0.0, "all": 1.0}


def test_gsi_item_outside_the_index_costs_the_table_only(ddb, gsi_table):
    """[gsi] "If an item is not present in the index before or after the item is
    updated, there is no additional write cost for the index." and "If you write an
    item to a table, you don't have to specify the attributes for any global secondary
    index sort key ... In this case, Amazon DynamoDB does not write any data to the
    index for this particular item."."""
    item = {key: value for key, value in SMALL.items() if key != "gk"}
    assert indexed_write(ddb, gsi_table, "put_item", Item=item) == {
        "total": 1.0, "table": 1.0, "keys": 0.0, "incl": 0.0, "all": 0.0}
    assert indexed_write(ddb, gsi_table, "update_item", Key=KEY, UpdateExpression="SET q = :q",
                         ExpressionAttributeValues={":q": s("z")}) == {
        "total": 1.0, "table": 1.0, "keys": 0.0, "incl": 0.0, "all": 0.0}


def test_gsi_defining_then_removing_the_key_attribute(ddb, gsi_table):
    """[gsi] "... or you update an existing item to define a previously undefined
    indexed attribute, one write operation is required to put the item into the index."
    "If an item was present in the index, but a write to the table caused the indexed
    attribute to be deleted, one write is required to delete the old item projection
    from the index."."""
    ddb.put_item(TableName=gsi_table, Item={k: v for k, v in SMALL.items() if k != "gk"})
    assert indexed_write(ddb, gsi_table, "update_item", Key=KEY, UpdateExpression="SET gk = :g",
                         ExpressionAttributeValues={":g": s("g")}) == {
        "total": 4.0, "table": 1.0, "keys": 1.0, "incl": 1.0, "all": 1.0}
    assert indexed_write(ddb, gsi_table, "update_item", Key=KEY,
                         UpdateExpression="REMOVE gk") == {
        "total": 4.0, "table": 1.0, "keys": 1.0, "incl": 1.0, "all": 1.0}


def test_gsi_delete_of_an_indexed_item_deletes_each_entry(ddb, gsi_table):
    """[gsi] "When an item in a table is added, updated, or deleted, and a global
    secondary index is affected by this, then the global secondary index will consume
    provisioned write capacity units for the operation." -- deleting the item deletes
    its indexed attribute: "one write is required to delete the old item projection"."""
    ddb.put_item(TableName=gsi_table, Item=SMALL)
    assert indexed_write(ddb, gsi_table, "delete_item", Key=KEY) == {
        "total": 4.0, "table": 1.0, "keys": 1.0, "incl": 1.0, "all": 1.0}


def test_total_mode_includes_the_index_writes(ddb, gsi_table):
    """[gsi] the total "consists of the sum of write capacity units consumed by writing
    to the base table and those consumed by updating the global secondary indexes";
    [api] TOTAL reports "only the aggregate"."""
    capacity = consumed(ddb.put_item(TableName=gsi_table, Item=SMALL,
                                     ReturnConsumedCapacity="TOTAL"), WRITE, gsi_table)
    assert capacity["CapacityUnits"] == 4.0
    assert not {"Table", "GlobalSecondaryIndexes"} & set(capacity)


# ---------------------------------------------------------------- LSI writes and reads

@pytest.fixture
def lsi_table(ddb) -> str:
    """Hash key `pk`, sort key `sk`; LSI "bylk" on `lk` projecting `a` (INCLUDE)."""
    return create(ddb, [("pk", "HASH"), ("sk", "RANGE")], {"lk": "S"}, LocalSecondaryIndexes=[{
        "IndexName": "bylk",
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                      {"AttributeName": "lk", "KeyType": "RANGE"}],
        "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["a"]}}])


def lsi_item(n: int) -> dict:
    """The [lsi] example's item: 300 bytes, 200 of them in the index entry (its keys
    and the projected `a`); `d` is not projected."""
    entry = {"pk": s("p"), "sk": s(f"s{n}"), "lk": s(f"l{n}")}  # 3 + 4 + 4 = 11 B
    entry = padded(entry, 200, "a")                               # a: 1 + 188 = 189 B
    return padded(entry, 300, "d")                                # d: 1 + 99 = 100 B


LSI_KEY = {"pk": s("p"), "sk": s("s1")}


def lsi_write(ddb, table, operation, **params) -> dict:
    return indexed_write(ddb, table, operation, "LocalSecondaryIndexes", ("bylk",), **params)


def test_lsi_put_writes_the_index(ddb, lsi_table):
    """[lsi] "If you write a new item to the table that defines an indexed attribute
    ... one write operation is required to put the item into the index." "The total
    provisioned throughput cost for a write is the sum of write capacity units consumed
    by writing to the table and those consumed by updating the local secondary
    indexes." Item 300 B -> 1; entry 200 B -> 1."""
    result = lsi_write(ddb, lsi_table, "put_item", Item=lsi_item(1))
    assert (result["total"], result["bylk"]) == (2.0, 1.0)


def test_lsi_item_without_the_index_key_costs_the_table_only(ddb, lsi_table):
    """[lsi] "If you write an item to a table, you don't have to specify the attributes
    for any local secondary index sort key ... In this case, DynamoDB does not write
    any data to the index for this particular item."."""
    item = {k: v for k, v in lsi_item(1).items() if k != "lk"}
    result = lsi_write(ddb, lsi_table, "put_item", Item=item)
    assert (result["total"], result["bylk"]) == (1.0, 0.0)


def test_lsi_key_change_is_a_delete_and_a_put(ddb, lsi_table):
    """[lsi] "If an update to the table changes the value of an indexed key attribute
    (from A to B), two writes are required, one to delete the previous item from the
    index and another write to put the new item into the index."."""
    ddb.put_item(TableName=lsi_table, Item=lsi_item(1))
    result = lsi_write(ddb, lsi_table, "update_item", Key=LSI_KEY, UpdateExpression="SET lk = :l",
                       ExpressionAttributeValues={":l": s("l9")})
    assert (result["total"], result["bylk"]) == (3.0, 2.0)


def test_lsi_removing_the_index_key_is_one_write(ddb, lsi_table):
    """[lsi] "If an item was present in the index, but a write to the table caused the
    indexed attribute to be deleted, one write is required to delete the old item
    projection from the index."."""
    ddb.put_item(TableName=lsi_table, Item=lsi_item(1))
    result = lsi_write(ddb, lsi_table, "update_item", Key=LSI_KEY, UpdateExpression="REMOVE lk")
    assert (result["total"], result["bylk"]) == (2.0, 1.0)


def test_lsi_unprojected_attribute_change_costs_the_index_nothing(ddb, lsi_table):
    """[lsi] "If an item is not present in the index before or after the item is
    updated, there is no additional write cost for the index." -- and an update that
    leaves the entry as it is (d is not projected) writes nothing to it ([gsi]'s "if a
    write to a table does not require a ... secondary index update, then no write
    capacity is consumed from the index"). (Whether an LSI write of a changed projected
    attribute costs one is not stated on the LSI page: not tested.)"""
    ddb.put_item(TableName=lsi_table, Item=lsi_item(1))
    result = lsi_write(ddb, lsi_table, "update_item", Key=LSI_KEY, UpdateExpression="SET d = :d",
                       ExpressionAttributeValues={":d": s("z" * 99)})
    assert (result["total"], result["bylk"]) == (1.0, 0.0)


@pytest.mark.parametrize("consistent, fetch, expected", [
    (True, True, 5.0),    # 4 x 200 = 800 B -> 4 KB: 1; + 4 x (300 B -> 4 KB): 4
    (False, True, 2.5),   # half of that
    (True, False, 1.0),   # the index entries only: 800 B -> 4 KB
    (False, False, 0.5),
])
def test_lsi_query_fetching_from_the_table(ddb, lsi_table, consistent, fetch, expected):
    """[lsi] "For index queries that request only index keys and projected attributes,
    DynamoDB calculates the provisioned read activity in the same way as it does for
    queries against tables. The only difference is that the calculation is based on
    the sizes of the index entries, rather than the size of the item in the base
    table." "... you are charged for read capacity units for every base table item
    fetched. This charge is for reading each entire item from the table, not just the
    requested attributes." Its example: 4 items of 300 bytes, 200 bytes of each
    projected, every item fetched: "800 bytes; this is then rounded up to 4 KB" +
    "(300 bytes, rounded up to 4 KB) x 4 items = 16 KB": 20 KB, 5 units strongly
    consistent. Only the total is asserted (how it splits between Table and
    LocalSecondaryIndexes is not documented)."""
    items = [lsi_item(n) for n in range(1, 5)]
    seed(ddb, lsi_table, items)
    extra = ({"Select": "ALL_ATTRIBUTES"} if fetch
             else {"ProjectionExpression": "pk, sk, lk, a"})
    reply = ddb.query(TableName=lsi_table, IndexName="bylk", KeyConditionExpression="pk = :p",
                      ExpressionAttributeValues={":p": s("p")}, ConsistentRead=consistent,
                      ReturnConsumedCapacity="INDEXES", **extra)
    assert reply["Count"] == 4
    if fetch:
        assert reply["Items"] == items
    assert units(reply, READ, lsi_table) == expected


@pytest.fixture
def gsi_read_table(ddb) -> str:
    """Hash key `pk`; GSI "byg" on `gk` projecting `a` (INCLUDE)."""
    return create(ddb, [("pk", "HASH")], {"gk": "S"}, GlobalSecondaryIndexes=[{
        "IndexName": "byg", "KeySchema": [{"AttributeName": "gk", "KeyType": "HASH"}],
        "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["a"]}}])


def test_gsi_query_counts_index_entries(ddb, gsi_read_table):
    """[gsi] "For global secondary index queries, DynamoDB calculates the provisioned
    read activity in the same way as it does for queries against tables. The only
    difference is that the calculation is based on the sizes of the index entries ...
    The number of read capacity units is the sum of all projected attribute sizes
    across all of the items returned; the result is then rounded up to the next 4 KB
    boundary." Its example: "a global secondary index where each item contains 2000
    bytes of data ... the query returns 8 items. The total size of the matching items
    is 2000 bytes x 8 items = 16,000 bytes; this is then rounded up to the nearest 4 KB
    boundary. Since global secondary index queries are eventually consistent, the total
    cost is 0.5 x (16 KB / 4 KB), or 2 read capacity units." And "A Query operation on
    a global secondary index consumes read capacity units from the index, not the base
    table." Entry: pk "k<n>" 4 + gk 3 + a (1 + 1992) = 2000 B; each table item also
    holds d of 5001 B (7001 B: 8 of them from the table would be 14 units, 7 eventual)."""
    items = [padded(padded({"pk": s(f"k{n}"), "gk": s("g")}, 2000, "a"), 7001)
             for n in range(1, 9)]
    seed(ddb, gsi_read_table, items)
    reply = ddb.query(TableName=gsi_read_table, IndexName="byg", KeyConditionExpression="gk = :g",
                      ExpressionAttributeValues={":g": s("g")}, ReturnConsumedCapacity="INDEXES")
    assert reply["Count"] == 8
    capacity = consumed(reply, READ, gsi_read_table)
    assert capacity["CapacityUnits"] == 2.0
    assert index_units(capacity, "GlobalSecondaryIndexes", "byg") == 2.0
    assert capacity.get("Table", {"CapacityUnits": 0.0})["CapacityUnits"] == 0.0


# ---------------------------------------------------------------- Query

def sorted_items(count: int, each: int, pk: str = "p") -> list[dict]:
    """`count` items of `each` bytes: pk 3 + sk ("sk" + 4 digits) 6 + d."""
    return [padded({"pk": s(pk), "sk": s(f"{n:04d}")}, each) for n in range(count)]


def query(ddb, table: str, **params) -> dict:
    return ddb.query(TableName=table, KeyConditionExpression="pk = :p",
                     ExpressionAttributeValues={":p": s("p"), **params.pop("values", {})},
                     ReturnConsumedCapacity="TOTAL", **params)


@pytest.mark.parametrize("consistent, expected", [
    (True, 2.0),    # 5 x 1000 = 5000 B -> 8 KB: 2 (per item it would be 5)
    (False, 1.0),   # half (per item: 2.5)
])
def test_query_sums_the_items_then_rounds_once(ddb, sorted_table, consistent, expected):
    """[rw] Query: "All items returned are treated as a single read operation, where
    DynamoDB computes the total size of all items and then rounds up to the next 4 KB
    boundary." and "For an eventually consistent read request, the operation consumes
    only half the capacity units."."""
    seed(ddb, sorted_table, sorted_items(5, 1000))
    reply = query(ddb, sorted_table, ConsistentRead=consistent)
    assert reply["Count"] == 5
    assert units(reply, READ, sorted_table) == expected


@pytest.mark.parametrize("consistent, expected", [(True, 24.0), (False, 12.0)])
def test_query_of_1500_items_of_64_bytes(ddb, sorted_table, consistent, expected):
    """[rw] "If a query returns 1500 items of 64 bytes each, the cumulative size is
    96 KB." 1500 x 64 = 96,000 B -> ceil(96000 / 4096) = 24 units (12 eventually
    consistent); per item it would be 1500 (750)."""
    seed(ddb, sorted_table, sorted_items(1500, 64))
    reply = query(ddb, sorted_table, ConsistentRead=consistent)
    assert reply["Count"] == 1500 and "LastEvaluatedKey" not in reply
    assert units(reply, READ, sorted_table) == expected


def test_query_filter_does_not_lower_the_cost(ddb, sorted_table):
    """[query] "A filter expression is applied after a Query finishes, but before the
    results are returned. Therefore, a Query will consume the same amount of read
    capacity, regardless of whether a filter expression is present."
    4 x 3000 = 12000 B -> 12 KB: 3 units, though nothing is returned."""
    seed(ddb, sorted_table, sorted_items(4, 3000))
    reply = query(ddb, sorted_table, ConsistentRead=True, FilterExpression="d = :none",
                  values={":none": s("none")})
    assert (reply["Count"], reply["ScannedCount"]) == (0, 4)
    assert units(reply, READ, sorted_table) == 3.0


def test_query_projection_does_not_lower_the_cost(ddb, sorted_table):
    """[query] "the number of capacity units consumed will be the same whether you
    request all of the attributes (the default behavior) or just some of them (using a
    projection expression)." 4 x 3000 B -> 3 units."""
    seed(ddb, sorted_table, sorted_items(4, 3000))
    reply = query(ddb, sorted_table, ConsistentRead=True, ProjectionExpression="sk")
    assert reply["Items"] == [{"sk": s(f"{n:04d}")} for n in range(4)]
    assert units(reply, READ, sorted_table) == 3.0


@pytest.mark.parametrize("consistent, expected", [(True, 3.0), (False, 1.5)])
def test_query_count_costs_the_same(ddb, sorted_table, consistent, expected):
    """[rw] "Query and Scan can return item counts instead of attribute values. Getting
    the count of items uses the same quantity of read capacity units and is subject to
    the same item size calculations. This is because DynamoDB has to read each item in
    order to increment the count." 4 x 3000 B -> 3 units."""
    seed(ddb, sorted_table, sorted_items(4, 3000))
    reply = query(ddb, sorted_table, ConsistentRead=consistent, Select="COUNT")
    assert reply["Count"] == 4 and "Items" not in reply
    assert units(reply, READ, sorted_table) == expected


@pytest.mark.parametrize("limit, expected", [
    (1, 1.0),   # 3000 B -> 4 KB
    (2, 2.0),   # 6000 B -> 8 KB
    (3, 3.0),   # 9000 B -> 12 KB
    (4, 3.0),   # 12000 B -> 12 KB
])
def test_query_limit_reads_only_that_many_items(ddb, sorted_table, limit, expected):
    """[query] Limit: "DynamoDB reads up to six items, and then returns only those that
    match"; API reference, Query Limit: "The maximum number of items to evaluate (not
    necessarily the number of matching items)." The items read are summed, rounded."""
    seed(ddb, sorted_table, sorted_items(4, 3000))
    reply = query(ddb, sorted_table, ConsistentRead=True, Limit=limit)
    assert reply["Count"] == limit
    assert units(reply, READ, sorted_table) == expected


@pytest.mark.parametrize("consistent, expected", [(True, 1.0), (False, 0.5)])
def test_query_with_no_match_costs_the_minimum(ddb, sorted_table, consistent, expected):
    """[rw] "If you perform a read operation on an item that doesn't exist, DynamoDB
    will still consume read throughput as outlined above. For Query/Scan operations,
    you'll still be charged additional read throughput based on read consistency and
    the number of partitions searched to serve the request, even if no data exists."
    One partition searched: the minimum read, 1 strongly / 0.5 eventually consistent."""
    seed(ddb, sorted_table, sorted_items(2, 100, pk="other"))
    reply = query(ddb, sorted_table, ConsistentRead=consistent)
    assert reply["Count"] == 0
    assert units(reply, READ, sorted_table) == expected


def test_query_indexes_mode_on_a_table(ddb, sorted_table):
    """[api] INDEXES: "the aggregate ConsumedCapacity for the operation, together with
    ConsumedCapacity for each table and secondary index that was accessed"; a table
    query reads only the table. 5 x 1000 B -> 8 KB: 2 strongly consistent."""
    seed(ddb, sorted_table, sorted_items(5, 1000))
    reply = ddb.query(TableName=sorted_table, KeyConditionExpression="pk = :p",
                      ExpressionAttributeValues={":p": s("p")}, ConsistentRead=True,
                      ReturnConsumedCapacity="INDEXES")
    capacity = consumed(reply, READ, sorted_table)
    assert capacity["CapacityUnits"] == 2.0 and capacity["Table"]["CapacityUnits"] == 2.0
    assert "GlobalSecondaryIndexes" not in capacity and "LocalSecondaryIndexes" not in capacity


# ---------------------------------------------------------------- Scan

@pytest.mark.parametrize("consistent, expected", [(True, 6.0), (False, 3.0)])
def test_scan_counts_the_items_evaluated(ddb, sorted_table, consistent, expected):
    """[rw] Scan: "DynamoDB considers the size of the items that are evaluated, not the
    size of the items returned by the scan." [scan] "The number is also the same
    whether or not you use a filter expression." 8 x 3000 = 24000 B -> 24 KB: 6 (more
    than the 4 partitions searched)."""
    seed(ddb, sorted_table, sorted_items(8, 3000))
    reply = ddb.scan(TableName=sorted_table, FilterExpression="d = :none",
                     ExpressionAttributeValues={":none": s("none")},
                     ConsistentRead=consistent, ReturnConsumedCapacity="TOTAL")
    assert (reply["Count"], reply["ScannedCount"]) == (0, 8)
    assert units(reply, READ, sorted_table) == expected


def test_scan_count_and_projection_cost_the_same(ddb, sorted_table):
    """[rw] counts use "the same quantity of read capacity units"; [scan] "the number
    of capacity units consumed is the same whether you request all of the attributes
    ... or just some of them". 20 x 1000 = 20000 B -> 20 KB: 5 (per item: 20)."""
    seed(ddb, sorted_table, sorted_items(20, 1000))
    for params in ({}, {"Select": "COUNT"}, {"ProjectionExpression": "sk"}):
        reply = ddb.scan(TableName=sorted_table, ConsistentRead=True,
                         ReturnConsumedCapacity="TOTAL", **params)
        assert reply["Count"] == 20
        assert units(reply, READ, sorted_table) == 5.0, params


@pytest.mark.parametrize("limit, expected", [(1, 1.0), (2, 2.0), (4, 3.0)])
def test_scan_limit_reads_only_that_many_items(ddb, sorted_table, limit, expected):
    """API reference, Scan Limit: "The maximum number of items to evaluate"; [rw] the
    items evaluated are what is counted. 3000 B items: 1 -> 4 KB, 2 -> 8 KB,
    4 -> 12000 B -> 12 KB."""
    seed(ddb, sorted_table, sorted_items(4, 3000))
    reply = ddb.scan(TableName=sorted_table, Limit=limit, ConsistentRead=True,
                     ReturnConsumedCapacity="TOTAL")
    assert reply["ScannedCount"] == limit
    assert units(reply, READ, sorted_table) == expected


@pytest.mark.parametrize("consistent, expected", [(True, 4.0), (False, 2.0)])
@pytest.mark.parametrize("count", [0, 1])
def test_scan_costs_a_unit_per_partition_searched(ddb, sorted_table, count, consistent,
                                                  expected):
    """[rw] "For Query/Scan operations, you'll still be charged additional read
    throughput based on read consistency and the number of partitions searched to serve
    the request, even if no data exists."; recorded from DynamoDB (issue 24): a Scan of a
    one-item table costs 4.0, 2.0 eventually consistent. A new table has 4 partitions
    (its warm throughput, 12,000 reads and 4,000 writes, at 3,000 and 1,000 a
    partition)."""
    seed(ddb, sorted_table, sorted_items(count, 100))
    reply = ddb.scan(TableName=sorted_table, ConsistentRead=consistent,
                     ReturnConsumedCapacity="TOTAL")
    assert reply["Count"] == count
    assert units(reply, READ, sorted_table) == expected


def test_each_segment_of_a_parallel_scan_searches_its_own_partitions(ddb, sorted_table):
    """Four segments of a 4-partition table search one partition each."""
    for segment in range(4):
        reply = ddb.scan(TableName=sorted_table, Segment=segment, TotalSegments=4,
                         ConsistentRead=True, ReturnConsumedCapacity="TOTAL")
        assert units(reply, READ, sorted_table) == 1.0


# ---------------------------------------------------------------- BatchGetItem

@pytest.mark.parametrize("consistent, expected", [(True, 3.0), (False, 1.5)])
def test_batch_get_rounds_each_item(ddb, sorted_table, consistent, expected):
    """[rw] BatchGetItem: "DynamoDB processes each item in the batch as an individual
    GetItem request, so DynamoDB first rounds up the size of each item to the next 4 KB
    boundary, and then calculates the total size. ... For example, if BatchGetItem
    reads a 1.5 KB item and a 6.5 KB item, DynamoDB calculates the size as 12 KB (4 KB
    + 8 KB), not 8 KB (1.5 KB + 6.5 KB)." 1536 B and 6656 B: 1 + 2 = 3 units."""
    items = [padded({"pk": s("p"), "sk": s("0")}, 1536), padded({"pk": s("p"), "sk": s("1")}, 6656)]
    seed(ddb, sorted_table, items)
    reply = ddb.batch_get_item(RequestItems={sorted_table: {
        "Keys": [{"pk": s("p"), "sk": s("0")}, {"pk": s("p"), "sk": s("1")}],
        "ConsistentRead": consistent}}, ReturnConsumedCapacity="TOTAL")
    assert len(reply["Responses"][sorted_table]) == 2
    assert per_table(reply, READ) == {sorted_table: expected}


def test_batch_get_reports_each_table(ddb, table, sorted_table):
    """[rw] "DynamoDB processes each item in the batch as an individual GetItem
    request" -- so a missing item costs what a GetItem of it costs ("A strongly
    consistent read request consumes one read capacity unit, while an eventually
    consistent read request consumes 0.5"); [api] BatchGetItem ConsumedCapacity: "Each
    element consists of: TableName ... CapacityUnits".
    table (strongly consistent): 5000 B -> 2, missing -> 1: 3.
    sorted_table (eventually consistent): 100 B -> 0.5, 4097 B -> 1: 1.5."""
    ddb.put_item(TableName=table, Item=padded(KEY, 5000))
    seed(ddb, sorted_table, [padded({"pk": s("p"), "sk": s("0")}, 100),
                             padded({"pk": s("p"), "sk": s("1")}, 4097)])
    reply = ddb.batch_get_item(RequestItems={
        table: {"Keys": [KEY, {"pk": s("missing")}], "ConsistentRead": True},
        sorted_table: {"Keys": [{"pk": s("p"), "sk": s("0")}, {"pk": s("p"), "sk": s("1")}]}},
        ReturnConsumedCapacity="TOTAL")
    assert per_table(reply, READ) == {table: 3.0, sorted_table: 1.5}


def test_batch_get_indexes_mode_lists_tables_only(ddb, gsi_table):
    """[api] "some operations, such as GetItem and BatchGetItem, do not access any
    indexes at all. In these cases, specifying INDEXES will only return
    ConsumedCapacity information for table(s)." 158 B, strongly consistent: 1."""
    ddb.put_item(TableName=gsi_table, Item=SMALL)
    reply = ddb.batch_get_item(RequestItems={gsi_table: {"Keys": [KEY], "ConsistentRead": True}},
                               ReturnConsumedCapacity="INDEXES")
    [capacity] = reply["ConsumedCapacity"]
    _check_kind(capacity, READ)
    assert capacity["TableName"] == gsi_table
    assert capacity["CapacityUnits"] == 1.0 and capacity["Table"]["CapacityUnits"] == 1.0
    assert "GlobalSecondaryIndexes" not in capacity


# ---------------------------------------------------------------- BatchWriteItem

def test_batch_write_rounds_each_item(ddb, sorted_table):
    """[rw] BatchWriteItem: "DynamoDB first rounds up the size of each item to the next
    1 KB boundary, and then calculates the total size. ... if BatchWriteItem writes a
    500 byte item and a 3.5 KB item, DynamoDB calculates the size as 5 KB (1 KB + 4 KB),
    not 4 KB (500 bytes + 3.5 KB)." 500 B and 3584 B: 1 + 4 = 5 units."""
    reply = ddb.batch_write_item(RequestItems={sorted_table: [
        {"PutRequest": {"Item": padded({"pk": s("p"), "sk": s("0")}, 500)}},
        {"PutRequest": {"Item": padded({"pk": s("p"), "sk": s("1")}, 3584)}}]},
        ReturnConsumedCapacity="TOTAL")
    assert per_table(reply, WRITE) == {sorted_table: 5.0}


def test_batch_write_reports_each_table(ddb, table, sorted_table):
    """[rw] BatchWriteItem: "DynamoDB processes each item in the batch as an individual
    PutItem or DeleteItem request": a put replacing a larger item costs the larger
    ("the item size that matters is the larger of the two"), a delete "the size of the
    deleted item", a delete of nothing the 1 KB minimum.
    table: put 1025 B -> 2, delete of nothing -> 1: 3.
    sorted_table: put of 10 B over 3000 B -> 3, delete of 1500 B -> 2: 5."""
    seed(ddb, sorted_table, [padded({"pk": s("p"), "sk": s("0")}, 3000),
                             padded({"pk": s("p"), "sk": s("1")}, 1500)])
    reply = ddb.batch_write_item(RequestItems={
        table: [{"PutRequest": {"Item": padded(KEY, 1025)}},
                {"DeleteRequest": {"Key": {"pk": s("nothing")}}}],
        sorted_table: [{"PutRequest": {"Item": padded({"pk": s("p"), "sk": s("0")}, 10)}},
                       {"DeleteRequest": {"Key": {"pk": s("p"), "sk": s("1")}}}]},
        ReturnConsumedCapacity="TOTAL")
    assert per_table(reply, WRITE) == {table: 3.0, sorted_table: 5.0}


def test_batch_write_counts_index_writes_as_put_item_does(ddb, gsi_table):
    """[rw] BatchWriteItem processes "each item in the batch as an individual PutItem";
    [gsi] a new indexed item is one write per index. 158 B: table 1 + 3 indexes."""
    reply = ddb.batch_write_item(RequestItems={gsi_table: [{"PutRequest": {"Item": SMALL}}]},
                                 ReturnConsumedCapacity="INDEXES")
    [capacity] = reply["ConsumedCapacity"]
    _check_kind(capacity, WRITE)
    assert capacity["CapacityUnits"] == 4.0 and capacity["Table"]["CapacityUnits"] == 1.0
    assert {name: index_units(capacity, "GlobalSecondaryIndexes", name) for name in GSIS} == {
        "keys": 1.0, "incl": 1.0, "all": 1.0}


# ---------------------------------------------------------------- TransactWriteItems

def test_transact_write_three_500_byte_items(ddb, sorted_table):
    """[tx] "suppose that your application executes one transaction per second, and each
    transaction writes three 500-byte items in your table. Each item requires two write
    capacity units (WCUs): one to prepare the transaction and one to commit the
    transaction. Therefore, you would need to provision six WCUs to the table."."""
    reply = ddb.transact_write_items(ReturnConsumedCapacity="TOTAL", TransactItems=[
        {"Put": {"TableName": sorted_table, "Item": padded({"pk": s("p"), "sk": s(f"{n}")}, 500)}}
        for n in range(3)])
    assert per_table(reply, WRITE) == {sorted_table: 6.0}


def test_transact_write_rounds_each_item_then_doubles(ddb, table, sorted_table):
    """[tx] "DynamoDB performs two underlying reads or writes of every item in the
    transaction"; each action sized as its single-item operation ([tx] "Put — Initiates
    a PutItem operation", "Update — Initiates an UpdateItem operation", "Delete —
    Initiates a DeleteItem operation"; [rw] the 1 KB rounding, the larger of before
    and after, the deleted item).
    table: put 1500 B -> 2 x 2 = 4; update of a 1000 B item to 2100 B -> 3 x 2 = 6.
    sorted_table: delete of nothing -> 1 x 2 = 2; delete of 2049 B -> 3 x 2 = 6."""
    ddb.put_item(TableName=table, Item=padded({"pk": s("u")}, 1000))
    ddb.put_item(TableName=sorted_table, Item=padded({"pk": s("p"), "sk": s("1")}, 2049))
    grown = padded({"pk": s("u")}, 2100)
    reply = ddb.transact_write_items(ReturnConsumedCapacity="TOTAL", TransactItems=[
        {"Put": {"TableName": table, "Item": padded(KEY, 1500)}},
        {"Update": {"TableName": table, "Key": {"pk": s("u")}, "UpdateExpression": "SET d = :d",
                    "ExpressionAttributeValues": {":d": grown["d"]}}},
        {"Delete": {"TableName": sorted_table, "Key": {"pk": s("p"), "sk": s("0")}}},
        {"Delete": {"TableName": sorted_table, "Key": {"pk": s("p"), "sk": s("1")}}}])
    assert per_table(reply, WRITE) == {table: 10.0, sorted_table: 8.0}


def test_transact_write_condition_check_leaves_other_tables_alone(ddb, table, sorted_table):
    """[api] TransactWriteItems ConsumedCapacity: "The capacity units consumed by the
    entire TransactWriteItems operation", one entry per table ([api] ConsumedCapacity:
    "TableName: The name of the table that was affected by the operation"). What a
    ConditionCheck costs is not documented: only the other table's entry is asserted.
    table: put 500 B -> 1 x 2 = 2."""
    ddb.put_item(TableName=sorted_table, Item=padded({"pk": s("p"), "sk": s("0")}, 3000))
    reply = ddb.transact_write_items(ReturnConsumedCapacity="TOTAL", TransactItems=[
        {"Put": {"TableName": table, "Item": padded(KEY, 500)}},
        {"ConditionCheck": {"TableName": sorted_table, "Key": {"pk": s("p"), "sk": s("0")},
                            "ConditionExpression": "attribute_exists(pk)"}}])
    assert per_table(reply, WRITE)[table] == 2.0


def test_transact_write_indexes_mode_on_a_table_without_indexes(ddb, table):
    """[api] INDEXES gives "ConsumedCapacity for each table and secondary index that was
    accessed". Put 1025 B -> 2 x 2 = 4, all on the table."""
    reply = ddb.transact_write_items(ReturnConsumedCapacity="INDEXES", TransactItems=[
        {"Put": {"TableName": table, "Item": padded(KEY, 1025)}}])
    [capacity] = reply["ConsumedCapacity"]
    _check_kind(capacity, WRITE)
    _check_kind(capacity["Table"], WRITE)
    assert capacity["TableName"] == table
    assert capacity["CapacityUnits"] == 4.0 and capacity["Table"]["CapacityUnits"] == 4.0


# ---------------------------------------------------------------- TransactGetItems

def test_transact_get_three_500_byte_items(ddb, sorted_table):
    """[tx] "if your application executes one read transaction per second, and each
    transaction reads three 500-byte items in your table, you would need to provision
    six read capacity units (RCUs) to the table. Reading each item require two RCUs"."""
    items = [padded({"pk": s("p"), "sk": s(f"{n}")}, 500) for n in range(3)]
    seed(ddb, sorted_table, items)
    reply = ddb.transact_get_items(ReturnConsumedCapacity="TOTAL", TransactItems=[
        {"Get": {"TableName": sorted_table, "Key": {"pk": s("p"), "sk": s(f"{n}")}}}
        for n in range(3)])
    assert [r["Item"] for r in reply["Responses"]] == items
    assert per_table(reply, READ) == {sorted_table: 6.0}


def test_transact_get_rounds_each_item_then_doubles(ddb, table, sorted_table):
    """[rw] "A transactional read request of an item up to 4 KB requires two read
    units." "if your item size is 8 KB, you require ... 4 read units for a
    transactional read request." "If you perform a read operation on an item that
    doesn't exist, DynamoDB will still consume read throughput as outlined above."
    table: 8 KB (8192 B) -> 4; missing -> 2: 6.   sorted_table: 8193 B -> 3 x 2 = 6."""
    ddb.put_item(TableName=table, Item=padded(KEY, 8192))
    ddb.put_item(TableName=sorted_table, Item=padded({"pk": s("p"), "sk": s("0")}, 8193))
    reply = ddb.transact_get_items(ReturnConsumedCapacity="TOTAL", TransactItems=[
        {"Get": {"TableName": table, "Key": KEY}},
        {"Get": {"TableName": table, "Key": {"pk": s("missing")}}},
        {"Get": {"TableName": sorted_table, "Key": {"pk": s("p"), "sk": s("0")},
                 "ProjectionExpression": "sk"}}])
    assert reply["Responses"][2]["Item"] == {"sk": s("0")}
    assert per_table(reply, READ) == {table: 6.0, sorted_table: 6.0}


# ---------------------------------------------------------------- PartiQL

def statement(ddb, text: str, *parameters, **params) -> dict:
    extra = {"Parameters": list(parameters)} if parameters else {}
    return ddb.execute_statement(Statement=text, ReturnConsumedCapacity="TOTAL", **extra, **params)


@pytest.mark.parametrize("stored, consistent, expected", [
    (4097, True, 2.0), (4097, False, 1.0),   # 8 KB
    (None, True, 1.0), (None, False, 0.5),   # missing: the minimum
])
def test_partiql_select_by_full_key_is_a_get(ddb, sorted_table, stored, consistent, expected):
    """[ql] a SELECT with an equality on the whole key reads one item; [rw] GetItem's
    rule: the item rounded up to 4 KB, halved when eventually consistent, the minimum
    for an item that does not exist. ExecuteStatement's ReturnConsumedCapacity "returns
    the total read and write capacity consumed" (AWS announcement: "DynamoDB can return
    the throughput capacity consumed by PartiQL API calls")."""
    if stored is not None:
        ddb.put_item(TableName=sorted_table, Item=padded({"pk": s("p"), "sk": s("0")}, stored))
    reply = statement(ddb, f'SELECT * FROM "{sorted_table}" WHERE pk = ? AND sk = ?',
                      s("p"), s("0"), ConsistentRead=consistent)
    assert len(reply["Items"]) == (0 if stored is None else 1)
    assert units(reply, READ, sorted_table) == expected


@pytest.mark.parametrize("consistent, expected", [(True, 2.0), (False, 1.0)])
def test_partiql_select_by_partition_is_a_query(ddb, sorted_table, consistent, expected):
    """[ql] "Using the SELECT statement can result in a full table scan if an equality
    or IN condition with a partition key is not provided in the WHERE clause" -- with
    one, it reads that partition: [rw] Query's rule, the items summed and rounded once.
    5 x 1000 = 5000 B -> 8 KB: 2 (1 eventually consistent)."""
    seed(ddb, sorted_table, sorted_items(5, 1000))
    reply = statement(ddb, f'SELECT * FROM "{sorted_table}" WHERE pk = ?', s("p"),
                      ConsistentRead=consistent)
    assert len(reply["Items"]) == 5
    assert units(reply, READ, sorted_table) == expected


def test_partiql_select_without_the_key_is_a_scan(ddb, sorted_table):
    """[ql] without an equality on the partition key the SELECT is a full table scan;
    [rw] Scan: "DynamoDB considers the size of the items that are evaluated, not the
    size of the items returned". 8 x 3000 = 24000 B -> 24 KB: 6, though none match."""
    seed(ddb, sorted_table, sorted_items(8, 3000))
    reply = statement(ddb, f'SELECT * FROM "{sorted_table}" WHERE d = ?', s("none"),
                      ConsistentRead=True)
    assert reply["Items"] == []
    assert units(reply, READ, sorted_table) == 6.0


def test_partiql_writes_cost_what_the_single_item_writes_cost(ddb, table):
    """ExecuteStatement performs "singleton writes" ([api] ExecuteStatement); [rw] the
    PutItem/UpdateItem/DeleteItem rules.
    INSERT of 1025 B -> 2; UPDATE of that item down to 10 B -> max(1025, 10) -> 2;
    UPDATE up to 3000 B -> 3; DELETE of the 3000 B item -> 3; DELETE of nothing -> 1."""
    item = padded(KEY, 1025)
    reply = statement(ddb, f'INSERT INTO "{table}" VALUE {{\'pk\': ?, \'d\': ?}}',
                      item["pk"], item["d"])
    assert units(reply, WRITE, table) == 2.0
    small, big = padded(KEY, 10), padded(KEY, 3000)
    update = f'UPDATE "{table}" SET d = ? WHERE pk = ?'
    assert units(statement(ddb, update, small["d"], s("k")), WRITE, table) == 2.0
    assert units(statement(ddb, update, big["d"], s("k")), WRITE, table) == 3.0
    delete = f'DELETE FROM "{table}" WHERE pk = ?'
    assert units(statement(ddb, delete, s("k")), WRITE, table) == 3.0
    assert units(statement(ddb, delete, s("k")), WRITE, table) == 1.0


def test_partiql_transaction_writes_are_doubled(ddb, sorted_table):
    """[api] ExecuteTransaction ReturnConsumedCapacity: "For more information, see
    TransactGetItems and TransactWriteItems"; [tx] three 500-byte items written in a
    transaction: "you would need to provision six WCUs"."""
    items = [padded({"pk": s("p"), "sk": s(f"{n}")}, 500) for n in range(3)]
    reply = ddb.execute_transaction(ReturnConsumedCapacity="TOTAL", TransactStatements=[
        {"Statement": f'INSERT INTO "{sorted_table}" VALUE {{\'pk\': ?, \'sk\': ?, \'d\': ?}}',
         "Parameters": [item["pk"], item["sk"], item["d"]]} for item in items])
    assert per_table(reply, WRITE) == {sorted_table: 6.0}


def test_partiql_transaction_reads_are_doubled(ddb, table, sorted_table):
    """[api] ExecuteTransaction follows TransactGetItems; [tx] three 500-byte items read
    in a transaction: six RCUs; [rw] an 8 KB item: "4 read units for a transactional
    read request". sorted_table: 3 x 500 B -> 6; table: 8192 B -> 4."""
    seed(ddb, sorted_table, [padded({"pk": s("p"), "sk": s(f"{n}")}, 500) for n in range(3)])
    ddb.put_item(TableName=table, Item=padded(KEY, 8192))
    reply = ddb.execute_transaction(ReturnConsumedCapacity="TOTAL", TransactStatements=[
        *({"Statement": f'SELECT * FROM "{sorted_table}" WHERE pk = ? AND sk = ?',
           "Parameters": [s("p"), s(f"{n}")]} for n in range(3)),
        {"Statement": f'SELECT * FROM "{table}" WHERE pk = ?', "Parameters": [s("k")]}])
    assert len(reply["Responses"]) == 4
    assert per_table(reply, READ) == {sorted_table: 6.0, table: 4.0}


def test_partiql_batch_reads_round_each_item(ddb, sorted_table):
    """BatchExecuteStatement: "Each read statement in a BatchExecuteStatement must
    specify an equality condition on all key attributes" -- a batch of single-item
    reads, as BatchGetItem's: [rw] "rounds up the size of each item to the next 4 KB
    boundary, and then calculates the total size". 1536 B + 6656 B -> 4 + 8 KB: 3
    strongly consistent."""
    seed(ddb, sorted_table, [padded({"pk": s("p"), "sk": s("0")}, 1536),
                             padded({"pk": s("p"), "sk": s("1")}, 6656)])
    reply = ddb.batch_execute_statement(ReturnConsumedCapacity="TOTAL", Statements=[
        {"Statement": f'SELECT * FROM "{sorted_table}" WHERE pk = ? AND sk = ?',
         "Parameters": [s("p"), s(f"{n}")], "ConsistentRead": True} for n in range(2)])
    assert all("Item" in response for response in reply["Responses"])
    assert per_table(reply, READ) == {sorted_table: 3.0}


def test_partiql_batch_writes_round_each_item(ddb, table, sorted_table):
    """BatchExecuteStatement writes, as BatchWriteItem's: [rw] "rounds up the size of
    each item to the next 1 KB boundary, and then calculates the total size ... a 500
    byte item and a 3.5 KB item ... 5 KB (1 KB + 4 KB)"; a delete costs the deleted
    item. sorted_table: 500 B + 3584 B -> 1 + 4 = 5; table: delete of 2049 B -> 3."""
    ddb.put_item(TableName=table, Item=padded(KEY, 2049))
    insert = f'INSERT INTO "{sorted_table}" VALUE {{\'pk\': ?, \'sk\': ?, \'d\': ?}}'
    items = [padded({"pk": s("p"), "sk": s("0")}, 500), padded({"pk": s("p"), "sk": s("1")}, 3584)]
    reply = ddb.batch_execute_statement(ReturnConsumedCapacity="TOTAL", Statements=[
        *({"Statement": insert, "Parameters": [i["pk"], i["sk"], i["d"]]} for i in items),
        {"Statement": f'DELETE FROM "{table}" WHERE pk = ?', "Parameters": [s("k")]}])
    assert all("Error" not in response for response in reply["Responses"])
    assert per_table(reply, WRITE) == {sorted_table: 5.0, table: 3.0}


# ---------------------------------------------------------------- only when asked

@pytest.mark.parametrize("mode", [None, "NONE"])
def test_no_consumed_capacity_unless_asked(ddb, table, mode):
    """[api] ConsumedCapacity "is only returned if the request asked for it";
    ReturnConsumedCapacity "NONE - No ConsumedCapacity details are included in the
    response." -- for every multi-item operation (the single-item ones are covered in
    test_items_capacity.py)."""
    ddb.put_item(TableName=table, Item=KEY)
    extra = {} if mode is None else {"ReturnConsumedCapacity": mode}
    select = f'SELECT * FROM "{table}" WHERE pk = ?'
    replies = [
        ddb.query(TableName=table, KeyConditionExpression="pk = :p",
                  ExpressionAttributeValues={":p": s("k")}, **extra),
        ddb.scan(TableName=table, **extra),
        ddb.batch_get_item(RequestItems={table: {"Keys": [KEY]}}, **extra),
        ddb.batch_write_item(RequestItems={table: [{"PutRequest": {"Item": KEY}}]}, **extra),
        ddb.transact_get_items(TransactItems=[{"Get": {"TableName": table, "Key": KEY}}], **extra),
        ddb.transact_write_items(TransactItems=[{"Put": {"TableName": table, "Item": KEY}}],
                                 **extra),
        ddb.execute_statement(Statement=select, Parameters=[s("k")], **extra),
        ddb.execute_transaction(TransactStatements=[{"Statement": select,
                                                     "Parameters": [s("k")]}], **extra),
        ddb.batch_execute_statement(Statements=[{"Statement": select,
                                                 "Parameters": [s("k")]}], **extra),
    ]
    assert [("ConsumedCapacity" in reply) for reply in replies] == [False] * len(replies)
