// Capacity and metrics: a table's and its indexes' consumed against provisioned
// capacity, throttles and latency over the last hour (GET /okura/metrics, polled), its
// throttling and consistency modes, the writes eventually consistent readers do not see
// yet (GET /okura/consistency, polled), and its hot keys when Contributor Insights is on.
import { admin, ddb, session } from "../api.js";
import { describe, tablePicker } from "../catalog.js";
import { chart } from "../graph.js";
import { act, field, grid, h, select, status } from "../ui.js";

const POLL_MS = 2000;
const HOUR = 3600;

const perSecond = (point, owner, kind) => (point.consumed[owner]?.[kind] || 0) / point.seconds;

function capacityCharts(table, series) {
  const onDemand = table.BillingModeSummary?.BillingMode === "PAY_PER_REQUEST";
  const owners = [["", table.TableName, table.ProvisionedThroughput],
    ...(table.GlobalSecondaryIndexes || []).map((index) =>
      [index.IndexName, `index ${index.IndexName}`, index.ProvisionedThroughput])];
  const { points, now } = series;
  const from = now - HOUR;
  const charts = [];
  for (const [owner, title, provisioned] of owners) {
    for (const [kind, caption] of [["read", "Read"], ["write", "Write"]]) {
      const lines = [{ name: "consumed", points: points.map((p) => [p.start, perSecond(p, owner, kind)]) }];
      if (!onDemand && provisioned) {
        const units = provisioned[kind === "read" ? "ReadCapacityUnits" : "WriteCapacityUnits"];
        lines.push({ name: "provisioned", dashed: true, points: [[from, units], [now, units]] });
      }
      charts.push(chart(`${caption} capacity, ${title}`, "units per second", lines, from, now));
    }
  }
  const events = (kind) => points.map((p) => [p.start,
    Object.values(p.throttle_events).reduce((sum, owner) => sum + owner[kind], 0)]);
  charts.push(chart(`Throttles, ${table.TableName}`, "per minute", [
    { name: "read events", points: events("read") }, { name: "write events", points: events("write") },
    { name: "throttled requests", points: points.map((p) => [p.start, p.throttled_requests]) }],
  from, now));
  const operations = [...new Set(points.flatMap((p) => Object.keys(p.operations)))].sort();
  charts.push(chart(`Latency, ${table.TableName}`, "ms, average", operations.map((operation) => ({
    name: operation,
    points: points.filter((p) => p.operations[operation]).map((p) => [p.start, p.operations[operation].ms]),
  })), from, now));
  return charts;
}

async function insights(table, where) {
  const { ContributorInsightsStatus: state } = await ddb("DescribeContributorInsights",
    { TableName: table.TableName });
  const toggle = h("button", { type: "button", onclick: () => act(where.message, async () => {
    await ddb("UpdateContributorInsights", { TableName: table.TableName,
      ContributorInsightsAction: state === "ENABLED" ? "DISABLE" : "ENABLE" });
    where.redraw();
  }) }, state === "ENABLED" ? "Turn Contributor Insights off" : "Turn Contributor Insights on");
  const parts = [h("p", {}, `Contributor Insights: ${state} `, toggle)];
  if (state === "ENABLED") {
    const report = await admin("GET", `contributor-insights/${encodeURIComponent(table.TableName)}`
      + `?region=${encodeURIComponent(session.region)}`);
    for (const resource of report.Resources) {
      for (const [rule, keys] of Object.entries(resource.Rules || {})) {
        parts.push(grid([
          { title: "Key", value: (k) => JSON.stringify(k.Key) },
          { title: "Count", value: (k) => k.Count },
        ], keys, { caption: `${resource.IndexName || table.TableName}: ${rule}`, empty: `${rule}: no keys yet` }));
      }
    }
  }
  return parts;
}

// A table's own mode of a setting every table has (POST /okura/throttling, /okura/consistency)
async function mode(table, message, caption, endpoint, modes) {
  const state = await admin("GET", endpoint);
  const own = state.tables[table.TableName];
  const chosen = select([["", `as every table (${state.mode})`], ...modes], own || "",
    { "aria-label": `${caption} mode`, onchange: () => act(message, () => admin("POST", endpoint,
      { table: table.TableName, mode: chosen.value || null })) });
  return field(caption, chosen);
}

// What eventually consistent readers of the table and its indexes do not see yet
function pending(table, state) {
  const rows = state.pending.filter((p) => p.TableName === table.TableName && p.Region === session.region);
  return grid([
    { title: "Table or index", value: (p) => p.IndexName || p.TableName },
    { title: "Writes not yet visible", value: (p) => p.Writes },
    { title: "Oldest (s)", value: (p) => p.OldestAge.toFixed(3) },
  ], rows, { caption: "Pending writes", empty: "Every write is visible" });
}

export function render(view, [tableName]) {
  const message = status();
  const body = h("div");
  const charts = h("div", { class: "charts", "aria-live": "off" });
  const hot = h("div");
  let stopped = false;
  let timer = null;
  view.append(h("h1", {}, "Capacity and metrics"), message, body);
  act(message, async () => {
    const picker = await tablePicker("capacity", tableName);
    body.append(h("div", { class: "toolbar" }, field("Table", picker)));
    if (!tableName) return;
    const table = await describe(tableName);
    const lagging = h("div");
    const settle = h("button", { type: "button", onclick: () => act(message, () => admin("POST", "settle")) },
      "Settle now");
    body.append(h("div", { class: "toolbar" },
      await mode(table, message, "Throttling", "throttling", ["off", "shadow", "enforce"]),
      await mode(table, message, "Consistency", "consistency", ["strong", "eventual"]), settle),
    lagging, charts, h("h2", {}, "Hot keys"), hot);
    const where = { message, redraw: async () => hot.replaceChildren(...await insights(table, where)) };
    await where.redraw();
    const poll = async () => {
      await act(message, async () => {
        const series = await admin("GET", `metrics?table=${encodeURIComponent(tableName)}`
          + `&region=${encodeURIComponent(session.region)}`);
        charts.replaceChildren(...capacityCharts(table, series));
        lagging.replaceChildren(pending(table, await admin("GET", "consistency")));
      });
      if (!stopped) timer = setTimeout(poll, POLL_MS);
    };
    poll();
  });
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
