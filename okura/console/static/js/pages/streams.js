// Streams: the records of a table's stream, read from every shard and followed live
// (GetRecords polled every second while the page is shown).
import { ddb } from "../api.js";
import { describe, tablePicker } from "../catalog.js";
import { toPlainItem } from "../dynamo.js";
import { act, field, h, status, when } from "../ui.js";

const POLL_MS = 1000;
const SHOWN = 500; // records kept on the page, newest first

const streams = (operation, request) => ddb(operation, request, { streams: true });

async function shardsOf(arn) {
  const shards = [];
  let start;
  do {
    const { StreamDescription: stream } = await streams("DescribeStream",
      start ? { StreamArn: arn, ExclusiveStartShardId: start } : { StreamArn: arn });
    shards.push(...stream.Shards);
    start = stream.LastEvaluatedShardId;
  } while (start);
  return shards;
}

function record(entry) {
  const change = entry.dynamodb;
  const images = [["Keys", change.Keys], ["New image", change.NewImage], ["Old image", change.OldImage]]
    .filter(([, image]) => image);
  return h("li", { class: "record" },
    h("span", { class: `badge ${entry.eventName}` }, entry.eventName), " ",
    when(change.ApproximateCreationDateTime), " · ", change.SequenceNumber,
    entry.userIdentity ? ` · by ${entry.userIdentity.principalId || entry.userIdentity.PrincipalId}` : "",
    images.map(([title, image]) => h("pre", {}, `${title}: ${JSON.stringify(toPlainItem(image))}`)));
}

export function render(view, [tableName]) {
  const message = status();
  const body = h("div");
  let stopped = false;
  let timer = null;
  view.append(h("h1", {}, "Streams"), message, body);
  act(message, async () => {
    const picker = await tablePicker("streams", tableName,
      (table) => table.StreamSpecification?.StreamEnabled || table.TableName === tableName);
    body.append(h("div", { class: "toolbar" }, field("Table", picker)));
    if (!tableName) return;
    const table = await describe(tableName);
    if (!table.LatestStreamArn) {
      body.append(h("p", { class: "empty" }, "This table has no stream: turn one on in Tables, Edit."));
      return;
    }
    const follow = h("input", { type: "checkbox", checked: true });
    const list = h("ul", { class: "records", "aria-label": "Stream records", "aria-live": "polite" });
    const count = h("span");
    body.append(h("p", {}, `Stream ${table.LatestStreamArn} (${table.StreamSpecification.StreamViewType})`),
      h("div", { class: "toolbar" }, h("label", { class: "field check" }, follow, "Follow live"), count),
      list);
    const iterators = new Map(); // shard id -> its next iterator (null: closed and read)
    let seen = 0;
    const poll = () => act(message, async () => {
      for (const shard of await shardsOf(table.LatestStreamArn)) {
        if (iterators.has(shard.ShardId)) continue;
        const { ShardIterator } = await streams("GetShardIterator", { StreamArn: table.LatestStreamArn,
          ShardId: shard.ShardId, ShardIteratorType: "TRIM_HORIZON" });
        iterators.set(shard.ShardId, ShardIterator);
      }
      for (const [shard, iterator] of iterators) {
        let next = iterator;
        while (next) {
          const reply = await streams("GetRecords", { ShardIterator: next, Limit: 100 });
          reply.Records.forEach((entry) => list.prepend(record(entry)));
          seen += reply.Records.length;
          next = reply.NextShardIterator || null;
          iterators.set(shard, next);
          if (!reply.Records.length) break;
        }
      }
      while (list.children.length > SHOWN) list.lastChild.remove();
      count.textContent = `${seen} records read`;
    });
    const loop = async () => {
      await poll();
      if (!stopped && follow.checked) timer = setTimeout(loop, POLL_MS);
    };
    follow.addEventListener("change", () => {
      clearTimeout(timer);
      if (follow.checked) loop();
    });
    loop();
  });
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
