// PartiQL: ExecuteStatement with parameters, results as a grid, a history of the
// statements run (in localStorage).
import { ddb } from "../api.js";
import { cell, toDynamo, TYPES } from "../dynamo.js";
import { act, field, grid, h, status } from "../ui.js";

const HISTORY = "okura.partiql.history";
const KEPT = 30;

const history = () => JSON.parse(localStorage.getItem(HISTORY) || "[]");

function remember(entry) {
  const kept = history().filter((old) => old.statement !== entry.statement
    || old.parameters !== entry.parameters);
  localStorage.setItem(HISTORY, JSON.stringify([entry, ...kept].slice(0, KEPT)));
}

// A parameter as DynamoDB JSON: {"S": "x"} as it is, a plain value converted.
function parameter(value) {
  const entries = value && typeof value === "object" && !Array.isArray(value)
    ? Object.keys(value) : [];
  return entries.length === 1 && TYPES.includes(entries[0]) ? value : toDynamo(value);
}

export function render(view) {
  const message = status();
  const statement = h("textarea", { rows: 5, spellcheck: false,
    placeholder: "SELECT * FROM \"orders\" WHERE \"customer\" = ?" });
  const parameters = h("textarea", { rows: 2, spellcheck: false, placeholder: '["c1"]' });
  const consistent = h("input", { type: "checkbox" });
  const results = h("div");
  const more = h("div", { class: "actions" });
  const past = h("ol", { class: "history" });
  let items = [];

  const drawHistory = () => past.replaceChildren(...history().map((entry) => h("li", {},
    h("button", { type: "button", class: "sort", onclick: () => {
      statement.value = entry.statement;
      parameters.value = entry.parameters;
      statement.focus();
    } }, entry.statement.replace(/\s+/g, " ").slice(0, 140)))));
  const draw = () => {
    const names = [...new Set(items.flatMap((item) => Object.keys(item)))];
    results.replaceChildren(grid(names.map((name) => ({ title: name, value: (item) => cell(item[name]) })),
      items, { caption: `${items.length} items`, empty: "The statement returned no items." }));
  };
  const run = (token) => act(message, async () => {
    const request = { Statement: statement.value, ConsistentRead: consistent.checked };
    const text = parameters.value.trim();
    if (text) request.Parameters = JSON.parse(text).map(parameter);
    if (token) request.NextToken = token;
    const reply = await ddb("ExecuteStatement", request);
    remember({ statement: statement.value, parameters: parameters.value });
    drawHistory();
    items = token ? [...items, ...(reply.Items || [])] : reply.Items || [];
    draw();
    more.replaceChildren(reply.NextToken ? h("button", { type: "button",
      onclick: () => run(reply.NextToken) }, "More results") : "");
  });
  statement.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) run();
  });
  const wide = (label) => {
    label.classList.add("wide");
    return label;
  };
  view.append(h("h1", {}, "PartiQL"),
    h("form", { onsubmit: (event) => { event.preventDefault(); run(); } },
      wide(field("Statement", statement, "Ctrl+Enter runs it")),
      wide(field("Parameters", parameters,
        "a JSON list: plain values, or DynamoDB JSON ({\"N\": \"1\"})")),
      h("label", { class: "field check" }, consistent, "Consistent read"),
      h("div", { class: "actions" }, h("button", { type: "submit", class: "primary" }, "Run"))),
    message, results, more, h("h2", {}, "History"), past);
  drawHistory();
}
