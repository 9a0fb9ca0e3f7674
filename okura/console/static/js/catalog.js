// Tables as the pages need them: their names, and their descriptions.
import { all, ddb } from "./api.js";
import { select } from "./ui.js";

export const tableNames = () =>
  all("ListTables", { Limit: 100 }, "TableNames", "LastEvaluatedTableName",
    "ExclusiveStartTableName");

export const describe = async (name) => (await ddb("DescribeTable", { TableName: name })).Table;

// The key schema of the table or of one of its indexes (none: the table).
export function schemaOf(table, indexName) {
  if (!indexName) return table.KeySchema;
  const index = [...(table.GlobalSecondaryIndexes || []), ...(table.LocalSecondaryIndexes || [])]
    .find((candidate) => candidate.IndexName === indexName);
  return index.KeySchema;
}

export const typeOf = (table, attribute) =>
  table.AttributeDefinitions.find((d) => d.AttributeName === attribute)?.AttributeType || "S";

// "pk (S), sk (N)"
export const keysText = (table, schema) => schema.map(({ AttributeName }) =>
  `${AttributeName} (${typeOf(table, AttributeName)})`).join(", ");

// A select of the region's tables (those `filter` keeps, given their descriptions) that
// goes to #/page/table when changed.
export async function tablePicker(page, chosen, filter = null) {
  const names = await tableNames();
  const shown = filter ? (await Promise.all(names.map(describe))).filter(filter)
    .map((table) => table.TableName) : names;
  const picker = select([["", "Choose a table"], ...shown], chosen || "", {
    "aria-label": "Table",
    onchange: () => { location.hash = `#/${page}/${encodeURIComponent(picker.value)}`; },
  });
  return picker;
}
