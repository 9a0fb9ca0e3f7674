// Tables: every table of the region with its settings; create, update, delete.
import { ddb } from "../api.js";
import { describe, keysText, tableNames } from "../catalog.js";
import { act, bytes, dialog, field, grid, h, input, select, status } from "../ui.js";

const KEY_TYPES = ["S", "N", "B"];
const STREAM_VIEWS = ["NEW_AND_OLD_IMAGES", "NEW_IMAGE", "OLD_IMAGE", "KEYS_ONLY"];
const PROJECTIONS = ["ALL", "KEYS_ONLY", "INCLUDE"];

async function details(name) {
  const [table, ttl, backups] = await Promise.all([
    describe(name),
    ddb("DescribeTimeToLive", { TableName: name }).catch(() => ({})),
    ddb("DescribeContinuousBackups", { TableName: name }).catch(() => ({})),
  ]);
  table.ttl = ttl.TimeToLiveDescription || {};
  table.pitr = backups.ContinuousBackupsDescription?.PointInTimeRecoveryDescription || {};
  return table;
}

function billing(table) {
  if (table.BillingModeSummary?.BillingMode === "PAY_PER_REQUEST") return "On demand";
  const { ReadCapacityUnits: r, WriteCapacityUnits: w } = table.ProvisionedThroughput || {};
  return `Provisioned ${r} RCU / ${w} WCU`;
}

const indexes = (table) => [
  ...(table.GlobalSecondaryIndexes || []).map((i) => `GSI ${i.IndexName}` +
    (i.IndexStatus && i.IndexStatus !== "ACTIVE" ? ` (${i.IndexStatus})` : "")),
  ...(table.LocalSecondaryIndexes || []).map((i) => `LSI ${i.IndexName}`)].join(", ");

const link = (page, table, text) =>
  h("a", { href: `#/${page}/${encodeURIComponent(table.TableName)}` }, text);

const settling = (table) => table.TableStatus !== "ACTIVE" || (table.GlobalSecondaryIndexes || [])
  .some((index) => index.IndexStatus !== "ACTIVE");

export function render(view) {
  const message = status();
  const list = h("div", { "aria-busy": "true" });
  let timer = null;
  const refresh = () => act(message, async () => {
    clearTimeout(timer);
    const tables = await Promise.all((await tableNames()).map(details));
    if (tables.some(settling) && view.contains(list)) {
      timer = setTimeout(refresh, 1000); // until every table and index is ACTIVE
    }
    list.replaceChildren(grid([
      { title: "Name", value: (t) => link("items", t, t.TableName) },
      { title: "Status", value: (t) => h("span", { class: `badge ${t.TableStatus}` }, t.TableStatus) },
      { title: "Keys", value: (t) => keysText(t, t.KeySchema) },
      { title: "Items", value: (t) => t.ItemCount },
      { title: "Size", value: (t) => bytes(t.TableSizeBytes) },
      { title: "Billing", value: billing },
      { title: "Indexes", value: indexes },
      { title: "Stream", value: (t) => t.StreamSpecification?.StreamEnabled
        ? link("streams", t, t.StreamSpecification.StreamViewType) : "off" },
      { title: "TTL", value: (t) => t.ttl.TimeToLiveStatus === "ENABLED"
        ? t.ttl.AttributeName : (t.ttl.TimeToLiveStatus || "").toLowerCase() },
      { title: "PITR", value: (t) => (t.pitr.PointInTimeRecoveryStatus || "").toLowerCase() },
      { title: "Deletion protection", value: (t) => (t.DeletionProtectionEnabled ? "on" : "off") },
      { title: "Class", value: (t) => (t.TableClassSummary?.TableClass || "STANDARD")
        .replace("STANDARD_INFREQUENT_ACCESS", "Standard-IA").replace("STANDARD", "Standard") },
      { title: "", value: (t) => h("span", { class: "actions" },
        link("capacity", t, "Capacity"), " ",
        h("button", { type: "button", onclick: () => edit(t, refresh) }, "Edit"),
        h("button", { type: "button", class: "danger", onclick: () => remove(t, refresh) },
          "Delete")) },
    ], tables, { empty: "No tables in this region yet.", caption: `${tables.length} tables` }));
    list.removeAttribute("aria-busy");
  });
  view.append(
    h("div", { class: "toolbar" }, h("h1", {}, "Tables"),
      h("button", { type: "button", class: "primary", onclick: () => create(refresh) },
        "Create table"),
      h("button", { type: "button", onclick: refresh }, "Refresh")),
    message, list);
  refresh();
  return () => clearTimeout(timer);
}

// A key attribute's name and type fields.
function keyFields(caption, optional) {
  const name = input({ "aria-label": `${caption} name`, placeholder: optional ? "(none)" : "" });
  const type = select(KEY_TYPES, "S", { "aria-label": `${caption} type` });
  const element = h("div", {}, field(caption, name), field("Type", type));
  element.read = () => (name.value.trim() ? { name: name.value.trim(), type: type.value } : null);
  return element;
}

function projectionFields() {
  const kind = select(PROJECTIONS, "ALL", { "aria-label": "Projection" });
  const attributes = input({ placeholder: "a, b", "aria-label": "Projected attributes" });
  const element = h("div", {}, field("Projection", kind),
    field("Non-key attributes (INCLUDE)", attributes));
  element.read = () => (kind.value === "INCLUDE" ? { ProjectionType: "INCLUDE",
    NonKeyAttributes: attributes.value.split(",").map((a) => a.trim()).filter(Boolean) }
    : { ProjectionType: kind.value });
  return element;
}

function throughputFields(read = 5, write = 5) {
  const r = input({ type: "number", min: 1, value: read, size: 6, "aria-label": "Read capacity units" });
  const w = input({ type: "number", min: 1, value: write, size: 6, "aria-label": "Write capacity units" });
  const element = h("div", {}, field("Read capacity units", r), field("Write capacity units", w));
  element.read = () => ({ ReadCapacityUnits: Number(r.value), WriteCapacityUnits: Number(w.value) });
  return element;
}

// A global (or, `local`, a local) secondary index's fieldset.
function indexFieldset(local, onremove) {
  const name = input({ "aria-label": "Index name", required: true });
  const hash = local ? null : keyFields("Partition key");
  const range = keyFields("Sort key", !local);
  const projection = projectionFields();
  const throughput = local ? null : throughputFields();
  const box = h("fieldset", { class: local ? "lsi" : "gsi" },
    h("legend", {}, local ? "Local secondary index" : "Global secondary index"),
    field("Index name", name), hash, range, projection, throughput,
    h("button", { type: "button", onclick: () => { box.remove(); onremove?.(); } }, "Remove"));
  box.read = (tableHash, provisioned) => {
    const keys = [local ? tableHash : hash.read(), range.read()].filter(Boolean);
    const index = {
      IndexName: name.value.trim(),
      KeySchema: keys.map((k, i) => ({ AttributeName: k.name, KeyType: i ? "RANGE" : "HASH" })),
      Projection: projection.read(),
    };
    if (provisioned && !local) index.ProvisionedThroughput = throughput.read();
    return { index, keys };
  };
  return box;
}

const definitions = (keys) => Object.values(Object.fromEntries(keys.map((k) =>
  [k.name, { AttributeName: k.name, AttributeType: k.type }])));

async function untilActive(name) {
  for (let tries = 0; tries < 300; tries += 1) {
    const table = await describe(name);
    if (table.TableStatus === "ACTIVE" && !(table.GlobalSecondaryIndexes || [])
      .some((i) => i.IndexStatus && i.IndexStatus !== "ACTIVE")) return;
    await new Promise((done) => setTimeout(done, 200));
  }
}

function create(refresh) {
  dialog("Create table", (close) => {
    const message = status();
    const name = input({ required: true, "aria-label": "Table name" });
    const hash = keyFields("Partition key");
    const range = keyFields("Sort key", true);
    const mode = select([["PAY_PER_REQUEST", "On demand"], ["PROVISIONED", "Provisioned"]],
      "PAY_PER_REQUEST", { "aria-label": "Billing mode" });
    const throughput = throughputFields();
    const tableClass = select([["STANDARD", "Standard"],
      ["STANDARD_INFREQUENT_ACCESS", "Standard-IA"]], "STANDARD", { "aria-label": "Table class" });
    const stream = select([["", "off"], ...STREAM_VIEWS], "", { "aria-label": "Stream" });
    const ttl = input({ placeholder: "(off)", "aria-label": "TTL attribute" });
    const protect = h("input", { type: "checkbox" });
    const pitr = h("input", { type: "checkbox" });
    const globals = h("div");
    const locals = h("div");
    const submit = async (event) => {
      event.preventDefault();
      await act(message, async () => {
        const provisioned = mode.value === "PROVISIONED";
        const tableHash = hash.read();
        const keys = [tableHash, range.read()].filter(Boolean);
        const request = {
          TableName: name.value.trim(),
          KeySchema: keys.map((k, i) => ({ AttributeName: k.name, KeyType: i ? "RANGE" : "HASH" })),
          BillingMode: mode.value,
          TableClass: tableClass.value,
          DeletionProtectionEnabled: protect.checked,
        };
        const all = [...keys];
        for (const [container, key] of [[globals, "GlobalSecondaryIndexes"],
          [locals, "LocalSecondaryIndexes"]]) {
          const read = [...container.children].map((box) => box.read(tableHash, provisioned));
          if (read.length) request[key] = read.map((r) => r.index);
          read.forEach((r) => all.push(...r.keys));
        }
        request.AttributeDefinitions = definitions(all);
        if (provisioned) request.ProvisionedThroughput = throughput.read();
        if (stream.value) {
          request.StreamSpecification = { StreamEnabled: true, StreamViewType: stream.value };
        }
        await ddb("CreateTable", request);
        if (ttl.value.trim() || pitr.checked) {
          message.note("Created; waiting for it to be ACTIVE to set TTL and PITR…");
          await untilActive(request.TableName);
        }
        if (ttl.value.trim()) {
          await ddb("UpdateTimeToLive", { TableName: request.TableName,
            TimeToLiveSpecification: { Enabled: true, AttributeName: ttl.value.trim() } });
        }
        if (pitr.checked) {
          await ddb("UpdateContinuousBackups", { TableName: request.TableName,
            PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } });
        }
        close();
        refresh();
      });
    };
    return h("form", { onsubmit: submit },
      field("Table name", name), hash, range,
      h("fieldset", {}, h("legend", {}, "Capacity"), field("Billing mode", mode), throughput,
        field("Table class", tableClass)),
      h("fieldset", {}, h("legend", {}, "Indexes"), globals, locals,
        h("div", { class: "actions" },
          h("button", { type: "button", onclick: () => globals.append(indexFieldset(false)) },
            "Add global index"),
          h("button", { type: "button", onclick: () => locals.append(indexFieldset(true)) },
            "Add local index"))),
      h("fieldset", {}, h("legend", {}, "Settings"), field("Stream", stream),
        field("TTL attribute", ttl),
        h("label", { class: "field check" }, protect, "Deletion protection"),
        h("label", { class: "field check" }, pitr, "Point-in-time recovery")),
      message,
      h("div", { class: "actions" }, h("button", { type: "submit", class: "primary" }, "Create"),
        h("button", { type: "button", onclick: close }, "Cancel")));
  });
}

function edit(table, refresh) {
  dialog(`Update ${table.TableName}`, (close) => {
    const message = status();
    const name = table.TableName;
    const done = async (action) => {
      await act(message, async () => {
        await action();
        message.note("Done.");
        refresh();
      });
    };
    const onDemand = table.BillingModeSummary?.BillingMode === "PAY_PER_REQUEST";
    const mode = select([["PAY_PER_REQUEST", "On demand"], ["PROVISIONED", "Provisioned"]],
      onDemand ? "PAY_PER_REQUEST" : "PROVISIONED", { "aria-label": "Billing mode" });
    const throughput = throughputFields(table.ProvisionedThroughput?.ReadCapacityUnits || 5,
      table.ProvisionedThroughput?.WriteCapacityUnits || 5);
    const tableClass = select([["STANDARD", "Standard"], ["STANDARD_INFREQUENT_ACCESS",
      "Standard-IA"]], table.TableClassSummary?.TableClass || "STANDARD",
    { "aria-label": "Table class" });
    const protect = h("input", { type: "checkbox", checked: !!table.DeletionProtectionEnabled });
    const streamNow = table.StreamSpecification?.StreamEnabled
      ? table.StreamSpecification.StreamViewType : "";
    const stream = select([["", "off"], ...STREAM_VIEWS], streamNow, { "aria-label": "Stream" });
    const settings = () => {
      const request = { TableName: name };
      const wantedMode = mode.value;
      if (wantedMode !== (onDemand ? "PAY_PER_REQUEST" : "PROVISIONED")) {
        request.BillingMode = wantedMode;
      }
      if (wantedMode === "PROVISIONED") {
        const wanted = throughput.read();
        const now = table.ProvisionedThroughput || {};
        if (request.BillingMode || wanted.ReadCapacityUnits !== now.ReadCapacityUnits
          || wanted.WriteCapacityUnits !== now.WriteCapacityUnits) {
          request.ProvisionedThroughput = wanted;
        }
      }
      if (tableClass.value !== (table.TableClassSummary?.TableClass || "STANDARD")) {
        request.TableClass = tableClass.value;
      }
      if (protect.checked !== !!table.DeletionProtectionEnabled) {
        request.DeletionProtectionEnabled = protect.checked;
      }
      if (stream.value !== streamNow) {
        request.StreamSpecification = stream.value
          ? { StreamEnabled: true, StreamViewType: stream.value } : { StreamEnabled: false };
      }
      return ddb("UpdateTable", request);
    };
    const ttlOn = table.ttl.TimeToLiveStatus === "ENABLED";
    const ttl = input({ value: table.ttl.AttributeName || "", "aria-label": "TTL attribute" });
    const pitrOn = table.pitr.PointInTimeRecoveryStatus === "ENABLED";
    const globals = h("div");
    const addIndex = () => {
      const box = indexFieldset(false);
      globals.replaceChildren(box);
    };
    const createIndex = () => {
      const box = globals.firstChild;
      const { index, keys } = box.read(null, !onDemand);
      return ddb("UpdateTable", { TableName: name, AttributeDefinitions: definitions(keys),
        GlobalSecondaryIndexUpdates: [{ Create: index }] });
    };
    return h("div", {},
      h("fieldset", {}, h("legend", {}, "Settings"), field("Billing mode", mode), throughput,
        field("Table class", tableClass), field("Stream", stream),
        h("label", { class: "field check" }, protect, "Deletion protection"),
        h("div", { class: "actions" },
          h("button", { type: "button", class: "primary", onclick: () => done(settings) },
            "Update table"))),
      h("fieldset", {}, h("legend", {}, "Time to live"), field("TTL attribute", ttl),
        h("div", { class: "actions" },
          h("button", { type: "button", onclick: () => done(() => ddb("UpdateTimeToLive", {
            TableName: name, TimeToLiveSpecification: ttlOn
              ? { Enabled: false, AttributeName: table.ttl.AttributeName }
              : { Enabled: true, AttributeName: ttl.value.trim() } })) },
          ttlOn ? "Turn TTL off" : "Turn TTL on"))),
      h("fieldset", {}, h("legend", {}, "Point-in-time recovery"),
        h("p", {}, pitrOn ? "On" : "Off"),
        h("button", { type: "button", onclick: () => done(() => ddb("UpdateContinuousBackups", {
          TableName: name,
          PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: !pitrOn } })) },
        pitrOn ? "Turn PITR off" : "Turn PITR on")),
      h("fieldset", {}, h("legend", {}, "Global secondary indexes"),
        (table.GlobalSecondaryIndexes || []).map((index) => h("div", { class: "actions" },
          h("span", {}, `${index.IndexName}: ${keysText(table, index.KeySchema)}, `
            + `${index.Projection.ProjectionType} (${index.IndexStatus})`),
          h("button", { type: "button", class: "danger", onclick: () => done(() =>
            ddb("UpdateTable", { TableName: name,
              GlobalSecondaryIndexUpdates: [{ Delete: { IndexName: index.IndexName } }] })) },
          "Delete index"))),
        globals,
        h("div", { class: "actions" },
          h("button", { type: "button", onclick: addIndex }, "New index…"),
          h("button", { type: "button", onclick: () => globals.firstChild && done(createIndex) },
            "Create index"))),
      message,
      h("div", { class: "actions" }, h("button", { type: "button", onclick: close }, "Close")));
  });
}

function remove(table, refresh) {
  dialog(`Delete ${table.TableName}?`, (close) => {
    const message = status();
    return h("div", {},
      h("p", {}, `Delete the table ${table.TableName} and its ${table.ItemCount} items?`),
      message,
      h("div", { class: "actions" },
        h("button", { type: "button", class: "danger primary", onclick: () => act(message,
          async () => {
            await ddb("DeleteTable", { TableName: table.TableName });
            close();
            refresh();
          }) }, "Delete"),
        h("button", { type: "button", onclick: close }, "Cancel")));
  });
}
