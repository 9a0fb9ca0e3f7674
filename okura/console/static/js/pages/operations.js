// Operations: okura's clock, injected faults, backups and point-in-time recovery,
// exports and imports, bulk puts, and stream triggers' event source mappings.
import { admin, ddb, lambda } from "../api.js";
import { tableNames } from "../catalog.js";
import { act, bytes, field, grid, h, input, select, status, when } from "../ui.js";

const POLL_MS = 2000;
const iso = (value) => (typeof value === "number" ? when(value) : value || "");
const tail = (arn) => (arn || "").split("/").slice(1).join("/");

// A section: a heading, its own status line, and a body `draw` fills (again on reload).
function section(title, draw) {
  const message = status();
  const body = h("div");
  let element = null;
  // (a section polling its jobs' progress stops once its page has gone)
  const reload = () => element.isConnected && act(message, async () =>
    body.replaceChildren(...[await draw(reload, message)].flat()));
  element = h("section", { "aria-label": title }, h("h2", {}, title), message, body);
  element.reload = reload;
  return element;
}

async function clock(reload, message) {
  const { now, offset } = await admin("GET", "clock");
  const seconds = input({ type: "number", min: 0, value: 3600, size: 8 });
  const advance = (by) => act(message, async () => {
    await admin("POST", "clock", { advance: Number(by) });
    reload();
  });
  return [
    h("p", {}, "okura's clock: ", h("strong", { "aria-label": "okura's time" }, when(now)),
      ` (${Math.round(offset)} s ahead of real time). TTL, stream retention, PITR, metric periods and `
      + "trigger windows follow it; it never moves back."),
    h("form", { class: "toolbar", onsubmit: (event) => { event.preventDefault(); advance(seconds.value); } },
      field("Advance by (seconds)", seconds),
      h("button", { type: "submit", class: "primary" }, "Advance"),
      [["1 minute", 60], ["1 hour", 3600], ["1 day", 86400]].map(([text, by]) =>
        h("button", { type: "button", onclick: () => advance(by) }, `+${text}`))),
  ];
}

async function faults(reload, message) {
  const { rules } = await admin("GET", "faults");
  const rule = h("textarea", { rows: 3, spellcheck: false },
    '{"operation": "PutItem", "error": "ProvisionedThroughputExceededException", "count": 1}');
  return [
    grid([
      { title: "Id", value: (r) => r.id },
      { title: "Rule", value: (r) => JSON.stringify(Object.fromEntries(Object.entries(r)
        .filter(([name]) => !["id", "matched", "fired"].includes(name)))) },
      { title: "Matched", value: (r) => r.matched },
      { title: "Fired", value: (r) => r.fired },
    ], rules, { empty: "No fault rules." }),
    field("Rule (JSON, docs/admin.md)", rule),
    h("div", { class: "actions" },
      h("button", { type: "button", class: "primary", onclick: () => act(message, async () => {
        await admin("POST", "faults", JSON.parse(rule.value));
        reload();
      }) }, "Add rule"),
      h("button", { type: "button", class: "danger", onclick: () => act(message, async () => {
        await admin("DELETE", "faults");
        reload();
      }) }, "Clear all rules")),
  ];
}

async function backups(reload, message) {
  const [summaries, names] = await Promise.all([
    ddb("ListBackups", {}).then((reply) => reply.BackupSummaries || []), tableNames()]);
  const pitr = await Promise.all(names.map(async (name) => {
    const reply = await ddb("DescribeContinuousBackups", { TableName: name });
    return { name, ...reply.ContinuousBackupsDescription.PointInTimeRecoveryDescription };
  }));
  const table = select(names, names[0], { "aria-label": "Table to back up" });
  const backupName = input({ "aria-label": "Backup name", placeholder: "(table and time)" });
  const run = (action) => act(message, async () => {
    await action();
    reload();
  });
  const restore = (backup) => {
    const target = prompt(`Restore ${backup.BackupName} into a new table named:`);
    if (target) run(() => ddb("RestoreTableFromBackup", { TargetTableName: target, BackupArn: backup.BackupArn }));
  };
  const restoreTo = (entry) => {
    const target = prompt(`Restore ${entry.name} as of its latest restorable time into a new table named:`);
    if (target) {
      run(() => ddb("RestoreTableToPointInTime", { SourceTableName: entry.name,
        TargetTableName: target, UseLatestRestorableTime: true }));
    }
  };
  return [
    h("form", { class: "toolbar", onsubmit: (event) => {
      event.preventDefault();
      run(() => ddb("CreateBackup", { TableName: table.value,
        BackupName: backupName.value.trim() || `${table.value}-${Date.now()}` }));
    } }, field("Table", table), field("Backup name", backupName),
    h("button", { type: "submit", class: "primary", disabled: !names.length }, "Create backup")),
    grid([
      { title: "Backup", value: (b) => b.BackupName },
      { title: "Table", value: (b) => b.TableName },
      { title: "Status", value: (b) => h("span", { class: `badge ${b.BackupStatus}` }, b.BackupStatus) },
      { title: "Created", value: (b) => iso(b.BackupCreationDateTime) },
      { title: "Size", value: (b) => bytes(b.BackupSizeBytes) },
      { title: "", value: (b) => h("span", { class: "actions" },
        h("button", { type: "button", onclick: () => restore(b) }, "Restore…"),
        h("button", { type: "button", class: "danger", onclick: () =>
          run(() => ddb("DeleteBackup", { BackupArn: b.BackupArn })) }, "Delete")) },
    ], summaries, { empty: "No backups." }),
    h("h3", {}, "Point-in-time recovery"),
    grid([
      { title: "Table", value: (p) => p.name },
      { title: "PITR", value: (p) => p.PointInTimeRecoveryStatus },
      { title: "Earliest", value: (p) => iso(p.EarliestRestorableDateTime) },
      { title: "Latest", value: (p) => iso(p.LatestRestorableDateTime) },
      { title: "", value: (p) => h("span", { class: "actions" },
        h("button", { type: "button", onclick: () => run(() => ddb("UpdateContinuousBackups", {
          TableName: p.name, PointInTimeRecoverySpecification: {
            PointInTimeRecoveryEnabled: p.PointInTimeRecoveryStatus !== "ENABLED" } })) },
        p.PointInTimeRecoveryStatus === "ENABLED" ? "Turn off" : "Turn on"),
        p.PointInTimeRecoveryStatus === "ENABLED"
          ? h("button", { type: "button", onclick: () => restoreTo(p) }, "Restore latest…") : null) },
    ], pitr, { empty: "No tables." }),
  ];
}

async function transfers(reload, message) {
  const [exports, imports, names] = await Promise.all([
    ddb("ListExports", {}).then((reply) => Promise.all((reply.ExportSummaries || []).map(
      async (e) => (await ddb("DescribeExport", { ExportArn: e.ExportArn })).ExportDescription))),
    ddb("ListImports", {}).then((reply) => Promise.all((reply.ImportSummaryList || []).map(
      async (i) => (await ddb("DescribeImport", { ImportArn: i.ImportArn })).ImportTableDescription))),
    tableNames()]);
  const table = select(names, names[0], { "aria-label": "Table to export" });
  const bucket = input({ "aria-label": "Export bucket", required: true });
  const prefix = input({ "aria-label": "Export prefix" });
  const format = select(["DYNAMODB_JSON", "ION"], "DYNAMODB_JSON", { "aria-label": "Export format" });
  const source = input({ "aria-label": "Import bucket", required: true });
  const sourcePrefix = input({ "aria-label": "Import prefix" });
  const inputFormat = select(["DYNAMODB_JSON", "ION", "CSV"], "DYNAMODB_JSON", { "aria-label": "Import format" });
  const compression = select(["NONE", "GZIP", "ZSTD"], "NONE", { "aria-label": "Compression" });
  const target = input({ "aria-label": "New table name", required: true });
  const key = input({ "aria-label": "Partition key name", required: true });
  const keyType = select(["S", "N", "B"], "S", { "aria-label": "Partition key type" });
  const run = (action) => act(message, async () => {
    await action();
    reload();
  });
  const exportIt = async () => {
    const { Table } = await ddb("DescribeTable", { TableName: table.value });
    return ddb("ExportTableToPointInTime", { TableArn: Table.TableArn, S3Bucket: bucket.value,
      S3Prefix: prefix.value || undefined, ExportFormat: format.value });
  };
  const importIt = () => ddb("ImportTable", {
    S3BucketSource: { S3Bucket: source.value, S3KeyPrefix: sourcePrefix.value || undefined },
    InputFormat: inputFormat.value, InputCompressionType: compression.value,
    TableCreationParameters: { TableName: target.value, BillingMode: "PAY_PER_REQUEST",
      KeySchema: [{ AttributeName: key.value, KeyType: "HASH" }],
      AttributeDefinitions: [{ AttributeName: key.value, AttributeType: keyType.value }] } });
  if ([...exports, ...imports].some((job) => (job.ExportStatus || job.ImportStatus) === "IN_PROGRESS")) {
    setTimeout(reload, POLL_MS); // progress, until every job is done
  }
  return [
    h("form", { class: "toolbar", onsubmit: (event) => { event.preventDefault(); run(exportIt); } },
      field("Table", table), field("S3 bucket", bucket), field("Prefix", prefix), field("Format", format),
      h("button", { type: "submit", class: "primary", disabled: !names.length }, "Export")),
    grid([
      { title: "Export", value: (e) => tail(e.ExportArn) },
      { title: "Status", value: (e) => h("span", { class: `badge ${e.ExportStatus}` }, e.ExportStatus) },
      { title: "Table", value: (e) => tail(e.TableArn) },
      { title: "Destination", value: (e) => `s3://${e.S3Bucket}/${e.S3Prefix || ""}` },
      { title: "Items", value: (e) => e.ItemCount ?? "" },
      { title: "Size", value: (e) => bytes(e.BilledSizeBytes) },
      { title: "Started", value: (e) => iso(e.StartTime) },
      { title: "Ended", value: (e) => iso(e.EndTime) },
      { title: "Failure", value: (e) => e.FailureMessage || "" },
    ], exports, { empty: "No exports." }),
    h("form", { class: "toolbar", onsubmit: (event) => { event.preventDefault(); run(importIt); } },
      field("S3 bucket", source), field("Prefix", sourcePrefix), field("Format", inputFormat),
      field("Compression", compression), field("New table", target), field("Partition key", key),
      field("Type", keyType), h("button", { type: "submit", class: "primary" }, "Import")),
    grid([
      { title: "Import", value: (i) => tail(i.ImportArn) },
      { title: "Status", value: (i) => h("span", { class: `badge ${i.ImportStatus}` }, i.ImportStatus) },
      { title: "Table", value: (i) => tail(i.TableArn) },
      { title: "Source", value: (i) => `s3://${i.S3BucketSource?.S3Bucket}/${i.S3BucketSource?.S3KeyPrefix || ""}` },
      { title: "Processed", value: (i) => `${i.ProcessedItemCount ?? 0} items, ${bytes(i.ProcessedSizeBytes ?? 0)}` },
      { title: "Imported", value: (i) => i.ImportedItemCount ?? 0 },
      { title: "Errors", value: (i) => i.ErrorCount ?? 0 },
      { title: "Failure", value: (i) => i.FailureMessage || "" },
    ], imports, { empty: "No imports." }),
  ];
}

async function bulkPuts(reload, message) {
  const [operations, names] = await Promise.all([
    ddb("ListBulkOperations", { MaxResults: 25 }).then((reply) => Promise.all(
      (reply.BulkOperationsSummaryList || []).map(async (b) => (await ddb("DescribeBulkOperation",
        { BulkOperationArn: b.BulkOperationArn })).BulkOperationDescription))),
    tableNames()]);
  const table = select(names, names[0], { "aria-label": "Table to fill" });
  const source = input({ "aria-label": "Bulk input bucket", required: true });
  const sourcePrefix = input({ "aria-label": "Bulk input prefix" });
  const inputFormat = select(["DYNAMODB_JSON", "ION"], "DYNAMODB_JSON", { "aria-label": "Bulk input format" });
  const compression = select(["NONE", "GZIP", "ZSTD"], "NONE", { "aria-label": "Bulk compression" });
  const output = input({ "aria-label": "Report bucket", required: true });
  const rate = input({ type: "number", min: 1024, size: 8, "aria-label": "Max write units a second",
    placeholder: "(no limit)" });
  const run = (action) => act(message, async () => {
    await action();
    reload();
  });
  const start = () => ddb("StartBulkPutItems", { TableName: table.value,
    InputS3Configuration: { S3Bucket: source.value, S3KeyPrefix: sourcePrefix.value || undefined,
      InputFormat: inputFormat.value, InputCompressionType: compression.value },
    OutputS3Configuration: { S3Bucket: output.value, OutputType: ["ERROR", "CONDITION_CHECK_FAILURE"] },
    MaxWriteRequestUnits: rate.value ? Number(rate.value) : undefined });
  const going = (b) => ["IN_PROGRESS", "CANCELLING"].includes(b.BulkOperationStatus);
  if (operations.some(going)) setTimeout(reload, POLL_MS); // progress, until every one is done
  return [
    h("form", { class: "toolbar", onsubmit: (event) => { event.preventDefault(); run(start); } },
      field("Table", table), field("S3 bucket", source), field("Prefix", sourcePrefix),
      field("Format", inputFormat), field("Compression", compression), field("Report bucket", output),
      field("Max write units/s", rate),
      h("button", { type: "submit", class: "primary", disabled: !names.length }, "Start bulk put")),
    grid([
      { title: "Operation", value: (b) => tail(b.BulkOperationArn) },
      { title: "Status", value: (b) => h("span", { class: `badge ${b.BulkOperationStatus}` }, b.BulkOperationStatus) },
      { title: "Table", value: (b) => b.TableDetails?.[0]?.TableName || "" },
      { title: "Source", value: (b) => `s3://${b.InputS3Configuration?.S3Bucket}/${b.InputS3Configuration?.S3KeyPrefix || ""}` },
      { title: "Processed", value: (b) => `${b.ProcessedItemCount ?? 0} items, ${bytes(b.ProcessedInputBytes ?? 0)}`
        + (b.TotalInputBytes === undefined ? "" : ` of ${bytes(b.TotalInputBytes)}`) },
      { title: "Failed", value: (b) => b.FailedItemCount ?? 0 },
      { title: "Started", value: (b) => iso(b.StartTime) },
      { title: "Ended", value: (b) => iso(b.EndTime) },
      { title: "", value: (b) => (b.BulkOperationStatus === "IN_PROGRESS"
        ? h("button", { type: "button", class: "danger", onclick: () => run(() => ddb("CancelBulkOperation",
          { BulkOperationArn: b.BulkOperationArn })) }, "Cancel") : b.FailureMessage || "") },
    ], operations, { empty: "No bulk puts." }),
  ];
}

async function mappings() {
  const { EventSourceMappings: found } = await lambda("GET", "event-source-mappings");
  return grid([
    { title: "UUID", value: (m) => m.UUID },
    { title: "Function", value: (m) => m.FunctionArn.split(":").at(-1) },
    { title: "Stream of", value: (m) => (m.EventSourceArn || "").split("/")[1] || "" },
    { title: "State", value: (m) => h("span", { class: "badge" }, m.State) },
    { title: "Batch size", value: (m) => m.BatchSize },
    { title: "Last delivery", value: (m) => m.LastProcessingResult || "" },
    { title: "Modified", value: (m) => iso(m.LastModified) },
  ], found, { empty: "No event source mappings (docs/triggers.md)." });
}

export function render(view) {
  const sections = [section("Clock", clock), section("Faults", faults),
    section("Backups", backups), section("Exports and imports", transfers),
    section("Bulk puts", bulkPuts), section("Event source mappings", mappings)];
  view.append(h("h1", {}, "Operations"), ...sections);
  sections.forEach((s) => s.reload());
}
