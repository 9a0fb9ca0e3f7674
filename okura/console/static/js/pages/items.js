// Items: Query or Scan a table or index a page at a time, search a vector index
// (vectors.js), and create, edit, duplicate and delete items (as a form, plain JSON or
// DynamoDB JSON).
import { ddb } from "../api.js";
import { describe, keysText, schemaOf, tablePicker, typeOf } from "../catalog.js";
import { cell, fromField, keyOf, sortKey, toDynamoItem, toField, toPlainItem, TYPES } from "../dynamo.js";
import { act, dialog, field, grid, h, input, select, status } from "../ui.js";
import { vectorSearch } from "./vectors.js";

const SORT_OPS = [["=", "="], ["<", "<"], ["<=", "<="], [">", ">"], [">=", ">="],
  ["begins_with", "begins with"], ["between", "between"]];
const FILTER_OPS = [...SORT_OPS.slice(0, 5), ["<>", "≠"], ["begins_with", "begins with"],
  ["contains", "contains"], ["between", "between"], ["attribute_exists", "exists"],
  ["attribute_not_exists", "does not exist"]];
const PAGE_SIZES = [25, 50, 100, 250, 1000];

// An expression under construction: placeholders for names and values.
class Expression {
  constructor() {
    this.names = {};
    this.values = {};
  }

  name(attribute) {
    const found = Object.entries(this.names).find(([, n]) => n === attribute);
    if (found) return found[0];
    const placeholder = `#n${Object.keys(this.names).length}`;
    this.names[placeholder] = attribute;
    return placeholder;
  }

  value(value) {
    const placeholder = `:v${Object.keys(this.values).length}`;
    this.values[placeholder] = value;
    return placeholder;
  }

  // One comparison: `op` of SORT_OPS / FILTER_OPS, `values` DynamoDB JSON values.
  condition(attribute, op, values) {
    const name = this.name(attribute);
    if (op === "attribute_exists" || op === "attribute_not_exists") return `${op}(${name})`;
    if (op === "begins_with" || op === "contains") return `${op}(${name}, ${this.value(values[0])})`;
    if (op === "between") {
      return `${name} BETWEEN ${this.value(values[0])} AND ${this.value(values[1])}`;
    }
    return `${name} ${op} ${this.value(values[0])}`;
  }
}

// The fields of one condition: an operator and one or two values of `type`.
function conditionFields(ops, caption, type) {
  const op = select(ops, ops[0][0], { "aria-label": `${caption} operator` });
  const first = input({ "aria-label": `${caption} value`, size: 16 });
  const second = input({ "aria-label": `${caption} second value`, size: 16, hidden: true });
  const typeSelect = type ? null : select(["S", "N", "BOOL"], "S", { "aria-label": `${caption} type` });
  const sync = () => {
    second.hidden = op.value !== "between";
    first.hidden = op.value.startsWith("attribute_");
  };
  op.addEventListener("change", sync);
  const value = (text) => {
    const kind = type || typeSelect.value;
    return kind === "BOOL" ? { BOOL: text.trim() === "true" } : { [kind]: text };
  };
  return { op, first, second, typeSelect, read: () => [op.value, [value(first.value), value(second.value)]] };
}

export function render(view, [tableName]) {
  const message = status();
  const body = h("div");
  view.append(h("div", { class: "toolbar" }, h("h1", {}, "Items")), message, body);
  act(message, async () => {
    const [picker, table] = await Promise.all([tablePicker("items", tableName),
      tableName ? describe(tableName) : null]);
    body.append(h("div", { class: "toolbar" }, field("Table", picker)));
    if (table) body.append(await explorer(table, message));
  });
}

async function explorer(table, message) {
  const indexes = [...(table.GlobalSecondaryIndexes || []).map((i) => i.IndexName),
    ...(table.LocalSecondaryIndexes || []).map((i) => i.IndexName)];
  const source = select([["", `Table ${table.TableName}`], ...indexes.map((i) => [i, `Index ${i}`])],
    "", { "aria-label": "Table or index" });
  const mode = select([["scan", "Scan"], ["query", "Query"]], "scan", { "aria-label": "Operation" });
  const pageSize = select(PAGE_SIZES.map(String), "50", { "aria-label": "Items per page" });
  const keyBox = h("div", { class: "rows" });
  const filters = h("div", { class: "rows" });
  const expression = h("pre", { class: "expression", "aria-label": "Request" });
  const results = h("div");
  const pager = h("div", { class: "toolbar" });
  const columnsBox = h("details", {}, h("summary", {}, "Columns"));
  let keyConditions = null;
  let starts = [undefined]; // ExclusiveStartKey of each page shown so far
  let page = { Items: [] };
  const hidden = new Set();
  let sortBy = null;

  const schema = () => schemaOf(table, source.value);
  const drawKeyFields = () => {
    keyBox.replaceChildren();
    keyConditions = null;
    if (mode.value !== "query") return;
    const [hash, range] = schema();
    const pk = input({ "aria-label": `Partition key ${hash.AttributeName}`, required: true });
    const sk = range ? conditionFields(SORT_OPS, `Sort key ${range.AttributeName}`,
      typeOf(table, range.AttributeName)) : null;
    keyConditions = { hash, range, pk, sk };
    keyBox.append(h("div", {}, field(`${hash.AttributeName} (partition key) =`, pk),
      sk ? [field(`${range.AttributeName} (sort key)`, sk.op), sk.first, sk.second] : null));
  };
  const addFilter = () => {
    const attribute = input({ "aria-label": "Filter attribute", size: 12 });
    const condition = conditionFields(FILTER_OPS, "Filter");
    const row = h("div", { class: "filter" }, field("Filter on", attribute),
      field("Condition", condition.op), condition.typeSelect, condition.first, condition.second,
      h("button", { type: "button", "aria-label": "Remove filter", onclick: () => row.remove() }, "×"));
    row.read = () => (attribute.value.trim() ? [attribute.value.trim(), ...condition.read()] : null);
    filters.append(row);
    attribute.focus();
  };

  const request = () => {
    const built = new Expression();
    const wanted = { TableName: table.TableName, Limit: Number(pageSize.value) };
    if (source.value) wanted.IndexName = source.value;
    if (keyConditions) {
      const { hash, range, pk, sk } = keyConditions;
      const parts = [built.condition(hash.AttributeName, "=",
        [{ [typeOf(table, hash.AttributeName)]: pk.value }])];
      if (sk && (sk.first.value || sk.second.value)) {
        const [op, values] = sk.read();
        parts.push(built.condition(range.AttributeName, op, values));
      }
      wanted.KeyConditionExpression = parts.join(" AND ");
    }
    const conditions = [...filters.children].map((row) => row.read()).filter(Boolean)
      .map(([attribute, op, values]) => built.condition(attribute, op, values));
    if (conditions.length) wanted.FilterExpression = conditions.join(" AND ");
    if (Object.keys(built.names).length) wanted.ExpressionAttributeNames = built.names;
    if (Object.keys(built.values).length) wanted.ExpressionAttributeValues = built.values;
    return wanted;
  };
  const operation = () => (mode.value === "query" ? "Query" : "Scan");

  const columns = () => {
    const keys = [...table.KeySchema, ...(source.value ? schema() : [])].map((k) => k.AttributeName);
    const seen = new Set();
    page.Items.forEach((item) => Object.keys(item).forEach((name) => seen.add(name)));
    return [...new Set([...keys, ...[...seen].sort()])].filter((name) => seen.has(name) || keys.includes(name));
  };
  const drawPage = () => {
    const names = columns();
    columnsBox.replaceChildren(h("summary", {}, `Columns (${names.length - hidden.size} of ${names.length})`),
      ...names.map((name) => h("label", { class: "field check" }, h("input", {
        type: "checkbox", checked: !hidden.has(name),
        onchange: (event) => {
          if (event.target.checked) hidden.delete(name); else hidden.add(name);
          drawPage();
          columnsBox.open = true;
        },
      }), name)));
    const rows = [...page.Items];
    if (sortBy) {
      const [name, direction] = sortBy;
      rows.sort((a, b) => {
        const [x, y] = [sortKey(a[name]), sortKey(b[name])];
        const order = x === y ? 0 : x === null ? 1 : y === null ? -1 : x < y ? -1 : 1;
        return direction === "ascending" ? order : -order;
      });
    }
    results.replaceChildren(grid(names.filter((name) => !hidden.has(name)).map((name) => ({
      title: name,
      value: (item) => cell(item[name]),
      sorted: sortBy?.[0] === name ? sortBy[1] : undefined,
      sort: () => {
        sortBy = [name, sortBy?.[0] === name && sortBy[1] === "ascending" ? "descending" : "ascending"];
        drawPage();
      },
    })), rows, {
      caption: `Page ${starts.length}: ${page.Count} items returned, ${page.ScannedCount} read`,
      empty: "No items on this page.",
      onpick: (item) => editor(table, item, "edit", reload),
    }));
    pager.replaceChildren(
      h("button", { type: "button", disabled: starts.length < 2, onclick: back }, "← Previous page"),
      h("button", { type: "button", disabled: !page.LastEvaluatedKey, onclick: forward }, "Next page →"));
  };
  const load = () => act(message, async () => {
    const wanted = request();
    const start = starts[starts.length - 1];
    expression.textContent = `${operation()} ${JSON.stringify(wanted, null, 2)}`;
    page = await ddb(operation(), start ? { ...wanted, ExclusiveStartKey: start } : wanted);
    drawPage();
  });
  const run = () => {
    starts = [undefined];
    sortBy = null;
    return load();
  };
  const forward = () => {
    starts.push(page.LastEvaluatedKey);
    load();
  };
  const back = () => {
    starts.pop();
    load();
  };
  const reload = () => load();

  source.addEventListener("change", drawKeyFields);
  mode.addEventListener("change", drawKeyFields);
  const form = h("form", { class: "search", onsubmit: (event) => { event.preventDefault(); run(); } },
    h("p", {}, `Keys: ${keysText(table, table.KeySchema)} · ${table.ItemCount} items`),
    h("div", { class: "toolbar" }, field("Read", source), field("Operation", mode),
      field("Items per page", pageSize)),
    keyBox, filters,
    h("div", { class: "actions" },
      h("button", { type: "button", onclick: addFilter }, "Add filter"),
      h("button", { type: "submit", class: "primary" }, "Run"),
      h("button", { type: "button", onclick: () => editor(table, null, "new", reload) },
        "Create item")));
  run();
  return h("div", {}, form, vectorSearch(table, message), expression, columnsBox, pager, results);
}

// The item editor: `mode` "edit" (an existing item), "new" or "duplicate".
function editor(table, item, mode, changed) {
  const schema = table.KeySchema;
  const keyNames = schema.map((k) => k.AttributeName);
  let current = item ? structuredClone(item) : Object.fromEntries(keyNames.map((name) =>
    [name, { [typeOf(table, name)]: "" }]));
  const original = item && mode === "edit" ? keyOf(item, schema) : null;
  const title = { edit: "Edit item", new: "Create item", duplicate: "Duplicate item" }[mode];
  dialog(title, (close) => {
    const message = status();
    const panel = h("div", { role: "tabpanel" });
    let tab = "form";
    let read = () => current;

    const formTab = () => {
      const rows = h("div", { class: "rows" });
      const addRow = (name, value) => {
        const [type, text] = value ? toField(value) : ["S", ""];
        const isKey = keyNames.includes(name);
        const nameInput = input({ value: name, "aria-label": "Attribute name", size: 14,
          readonly: isKey && mode === "edit" });
        const typeSelect = select(isKey ? [type] : TYPES, type, { "aria-label": `Type of ${name || "attribute"}` });
        const long = type === "L" || type === "M" || type.endsWith("S") && type.length === 2;
        const valueInput = long ? h("textarea", { rows: 2, "aria-label": `Value of ${name || "attribute"}` }, text)
          : input({ value: text, "aria-label": `Value of ${name || "attribute"}`, size: 40 });
        const row = h("div", {}, nameInput, typeSelect, valueInput,
          isKey ? h("span", { class: "badge" }, "key") : h("button", {
            type: "button", "aria-label": `Remove ${name || "attribute"}`, onclick: () => row.remove(),
          }, "×"));
        row.read = () => [nameInput.value.trim(), fromField(typeSelect.value, valueInput.value)];
        rows.append(row);
        return nameInput;
      };
      const names = [...keyNames, ...Object.keys(current).filter((n) => !keyNames.includes(n)).sort()];
      names.forEach((name) => addRow(name, current[name]));
      read = () => Object.fromEntries([...rows.children].map((row) => row.read()).filter(([n]) => n));
      return [rows, h("button", { type: "button", onclick: () => addRow("", null).focus() },
        "Add attribute")];
    };
    const jsonTab = (dynamo) => {
      const text = h("textarea", { rows: 16, "aria-label": dynamo ? "Item as DynamoDB JSON" : "Item as JSON" },
        JSON.stringify(dynamo ? current : toPlainItem(current), null, 2));
      read = () => (dynamo ? JSON.parse(text.value) : toDynamoItem(JSON.parse(text.value)));
      return [text, dynamo ? null : h("small", {}, "Plain JSON: sets and binaries become lists and "
        + "strings; use DynamoDB JSON to keep their types.")];
    };
    const tabs = [["form", "Form"], ["json", "JSON"], ["dynamo", "DynamoDB JSON"]];
    const tabBar = h("div", { role: "tablist", "aria-label": "Item views" });
    const show = (wanted) => {
      try {
        current = read();
      } catch (error) {
        message.error(error);
        return;
      }
      message.clear();
      tab = wanted;
      panel.replaceChildren(...[tab === "form" ? formTab() : jsonTab(tab === "dynamo")].flat());
      tabBar.replaceChildren(...tabs.map(([id, text]) => h("button", {
        type: "button", role: "tab", "aria-selected": String(id === tab), onclick: () => show(id),
      }, text)));
    };
    show("form");

    const save = () => act(message, async () => {
      current = read();
      const request = { TableName: table.TableName, Item: current };
      const key = keyOf(current, schema);
      if (!original || JSON.stringify(key) !== JSON.stringify(original)) {
        // a new key: never overwrite an item that has it
        request.ConditionExpression = "attribute_not_exists(#key)";
        request.ExpressionAttributeNames = { "#key": keyNames[0] };
      }
      await ddb("PutItem", request);
      close();
      changed();
    });
    const remove = () => act(message, async () => {
      await ddb("DeleteItem", { TableName: table.TableName, Key: original });
      close();
      changed();
    });
    return h("div", {}, tabBar, panel, message,
      h("div", { class: "actions" },
        h("button", { type: "button", class: "primary", onclick: save }, mode === "edit" ? "Save" : "Create"),
        mode === "edit" ? [
          h("button", { type: "button", onclick: () => act(message, () => {
            const copy = read();
            close();
            editor(table, copy, "duplicate", changed);
          }) }, "Duplicate"),
          h("button", { type: "button", class: "danger", onclick: remove }, "Delete")] : null,
        h("button", { type: "button", onclick: close }, "Cancel")));
  });
}
