// Vector search on the Items page: SearchVectors against one of the table's vector
// indexes, a search vector typed as a JSON array of numbers, an optional
// SearchConditionExpression, and the results best first with their scores.
import { ddb } from "../api.js";
import { cell } from "../dynamo.js";
import { act, field, grid, h, input, select } from "../ui.js";

// The panel, or null when the table has no vector index.
export function vectorSearch(table, message) {
  const indexes = table.VectorIndexes || [];
  if (!indexes.length) return null;
  const index = select(indexes.map((i) => [i.IndexName,
    `${i.IndexName} (${i.Dimensions} dims, ${i.DistanceFunction})`]), indexes[0].IndexName,
  { "aria-label": "Vector index" });
  const vector = h("textarea", { "aria-label": "Search vector", rows: 2, cols: 60,
    placeholder: "[0.12, -0.5, ...]" });
  const topK = input({ "aria-label": "TopK", type: "number", min: 1, max: 100, value: 10 });
  const condition = input({ "aria-label": "Search condition", size: 40,
    placeholder: "category = :c" });
  const values = input({ "aria-label": "Condition values", size: 40,
    placeholder: '{":c": {"S": "books"}}' });
  const results = h("div");

  const search = () => act(message, async () => {
    const numbers = JSON.parse(vector.value || "[]");
    const wanted = { TableName: table.TableName, IndexName: index.value,
      TopK: Number(topK.value), SearchVector: numbers.map((n) => ({ N: String(n) })),
      ReturnConsumedCapacity: "TOTAL" };
    if (condition.value.trim()) wanted.SearchConditionExpression = condition.value.trim();
    if (values.value.trim()) wanted.ExpressionAttributeValues = JSON.parse(values.value);
    const reply = await ddb("SearchVectors", wanted);
    const found = reply.SearchResults || [];
    const names = [...new Set(found.flatMap((r) => Object.keys(r.Item || {})))].sort();
    results.replaceChildren(grid([{ title: "Score", value: (r) => String(r.Score) },
      ...names.map((name) => ({ title: name, value: (r) => cell(r.Item[name]) }))], found, {
      caption: `${found.length} results, ${reply.ConsumedCapacity?.VectorSearchRequestBytes ?? 0}`
        + " search bytes",
      empty: "No results.",
    }));
  });

  return h("details", { class: "vector-search" }, h("summary", {}, "Vector search"),
    h("form", { class: "search", onsubmit: (event) => { event.preventDefault(); search(); } },
      h("div", { class: "toolbar" }, field("Index", index), field("TopK", topK)),
      field("Search vector", vector),
      h("div", { class: "toolbar" }, field("Condition", condition), field("Values", values)),
      h("div", { class: "actions" }, h("button", { type: "submit", class: "primary" }, "Search"))),
    results);
}
