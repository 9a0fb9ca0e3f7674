// The JavaScript SDK v3 against okura: the low-level client, its paginators and
// waiters, the DocumentClient and the Streams client, as an application would use them.
// Usage: node dynamodb.mjs ENDPOINT TABLE; prints one JSON object of what it saw.
import {
  CreateTableCommand, DeleteTableCommand, DescribeTableCommand, DynamoDBClient,
  PutItemCommand, QueryCommand, paginateScan, waitUntilTableExists, waitUntilTableNotExists,
} from "@aws-sdk/client-dynamodb";
import {
  BatchWriteCommand, DeleteCommand, DynamoDBDocumentClient, GetCommand, QueryCommand as DocQuery,
  TransactWriteCommand, UpdateCommand,
} from "@aws-sdk/lib-dynamodb";
import {
  DescribeStreamCommand, DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand,
} from "@aws-sdk/client-dynamodb-streams";

const [endpoint, table] = process.argv.slice(2);
const config = {
  endpoint, region: "us-east-1",
  credentials: { accessKeyId: "any", secretAccessKey: "any" },
};
const client = new DynamoDBClient(config);
const docs = DynamoDBDocumentClient.from(client);
const seen = {};

await client.send(new CreateTableCommand({
  TableName: table, BillingMode: "PAY_PER_REQUEST",
  KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }, { AttributeName: "sk", KeyType: "RANGE" }],
  AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" },
                         { AttributeName: "sk", AttributeType: "N" },
                         { AttributeName: "team", AttributeType: "S" }],
  GlobalSecondaryIndexes: [{ IndexName: "by-team", Projection: { ProjectionType: "ALL" },
                             KeySchema: [{ AttributeName: "team", KeyType: "HASH" }] }],
  StreamSpecification: { StreamEnabled: true, StreamViewType: "NEW_AND_OLD_IMAGES" },
}));
await waitUntilTableExists({ client, maxWaitTime: 20, minDelay: 1 }, { TableName: table });

await client.send(new PutItemCommand({
  TableName: table, Item: { pk: { S: "low" }, sk: { N: "1" }, team: { S: "blue" } } }));
const items = [];
for (let i = 0; i < 30; i++) items.push({ pk: "doc", sk: i, team: i % 2 ? "red" : "blue",
                                          tags: new Set(["a", "b"]), nested: { n: i, ok: true } });
for (let i = 0; i < items.length; i += 25) {
  await docs.send(new BatchWriteCommand({ RequestItems: {
    [table]: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) } }));
}
await docs.send(new UpdateCommand({
  TableName: table, Key: { pk: "doc", sk: 0 }, UpdateExpression: "SET #c = :c ADD score :one",
  ExpressionAttributeNames: { "#c": "count" }, ExpressionAttributeValues: { ":c": 5, ":one": 1 },
  ReturnValues: "ALL_NEW" })).then((r) => { seen.updated = r.Attributes; });
seen.got = (await docs.send(new GetCommand({ TableName: table, Key: { pk: "doc", sk: 1 } }))).Item;
seen.got.tags = [...seen.got.tags].sort();

const page = await docs.send(new DocQuery({
  TableName: table, KeyConditionExpression: "pk = :p AND sk BETWEEN :a AND :b",
  ExpressionAttributeValues: { ":p": "doc", ":a": 10, ":b": 19 }, ScanIndexForward: false,
  Limit: 4 }));
seen.queryPage = { keys: page.Items.map((i) => i.sk), more: page.LastEvaluatedKey !== undefined };
const team = await client.send(new QueryCommand({
  TableName: table, IndexName: "by-team", KeyConditionExpression: "team = :t",
  ExpressionAttributeValues: { ":t": { S: "red" } }, Select: "COUNT" }));
seen.redCount = team.Count;

let pages = 0, scanned = 0;
for await (const p of paginateScan({ client, pageSize: 7 }, { TableName: table })) {
  pages += 1; scanned += p.Items.length;
}
seen.scan = { pages, scanned };

try {
  await docs.send(new TransactWriteCommand({ TransactItems: [
    { Put: { TableName: table, Item: { pk: "tx", sk: 1 } } },
    { ConditionCheck: { TableName: table, Key: { pk: "doc", sk: 2 },
                        ConditionExpression: "attribute_not_exists(pk)" } }] }));
} catch (error) {
  seen.cancelled = { name: error.name, reasons: error.CancellationReasons.map((r) => r.Code) };
}
try {
  await docs.send(new DeleteCommand({ TableName: table, Key: { pk: "doc", sk: 3 },
                                      ConditionExpression: "sk = :x",
                                      ExpressionAttributeValues: { ":x": 99 } }));
} catch (error) {
  seen.conditionFailed = error.name;
}

const streams = new DynamoDBStreamsClient(config);
const described = await client.send(new DescribeTableCommand({ TableName: table }));
const stream = (await streams.send(new DescribeStreamCommand({
  StreamArn: described.Table.LatestStreamArn }))).StreamDescription;
const iterator = (await streams.send(new GetShardIteratorCommand({
  StreamArn: stream.StreamArn, ShardId: stream.Shards[0].ShardId,
  ShardIteratorType: "TRIM_HORIZON" }))).ShardIterator;
const records = (await streams.send(new GetRecordsCommand({ ShardIterator: iterator }))).Records;
seen.records = { count: records.length, first: records[0].eventName,
                 modify: records.filter((r) => r.eventName === "MODIFY").length };

await client.send(new DeleteTableCommand({ TableName: table }));
await waitUntilTableNotExists({ client, maxWaitTime: 20, minDelay: 1 }, { TableName: table });
seen.deleted = true;
console.log(JSON.stringify(seen));
