// DynamoDB JSON ({"S": "x"}) and plain JSON ("x"), and how values show in a grid.

// A plain value as DynamoDB JSON: strings S, numbers N, booleans BOOL, null NULL,
// arrays L, objects M (sets and binaries need DynamoDB JSON).
export function toDynamo(value) {
  if (value === null || value === undefined) return { NULL: true };
  if (typeof value === "string") return { S: value };
  if (typeof value === "number") return { N: String(value) };
  if (typeof value === "boolean") return { BOOL: value };
  if (Array.isArray(value)) return { L: value.map(toDynamo) };
  return { M: toDynamoItem(value) };
}

export const toDynamoItem = (plain) =>
  Object.fromEntries(Object.entries(plain).map(([name, value]) => [name, toDynamo(value)]));

// A DynamoDB JSON value as plain JSON: numbers as numbers (a number JavaScript cannot
// hold exactly stays a string), sets as arrays, binaries as their base64.
export function toPlain(value) {
  const [type, inner] = Object.entries(value)[0] || [];
  switch (type) {
    case "N": return exactNumber(inner);
    case "NS": return inner.map(exactNumber);
    case "BOOL": return inner;
    case "NULL": return null;
    case "L": return inner.map(toPlain);
    case "M": return toPlainItem(inner);
    default: return inner; // S, B, SS, BS
  }
}

function exactNumber(text) {
  const number = Number(text);
  return String(number) === text ? number : text;
}

export const toPlainItem = (item) =>
  Object.fromEntries(Object.entries(item).map(([name, value]) => [name, toPlain(value)]));

// A value as one line of a grid cell.
export function cell(value) {
  if (value === undefined) return "";
  const [type, inner] = Object.entries(value)[0];
  if (type === "S" || type === "N" || type === "B") return inner;
  if (type === "BOOL") return String(inner);
  if (type === "NULL") return "null";
  return JSON.stringify(toPlain(value));
}

// A value for sorting a column: numbers by value, everything else by its text.
export function sortKey(value) {
  if (value === undefined) return null;
  return "N" in value ? Number(value.N) : cell(value);
}

export const TYPES = ["S", "N", "B", "BOOL", "NULL", "SS", "NS", "BS", "L", "M"];

// A form field's text as a value of `type`: scalars as typed, the rest as JSON.
export function fromField(type, text) {
  if (type === "S" || type === "N" || type === "B") return { [type]: text };
  if (type === "BOOL") return { BOOL: text.trim() === "true" };
  if (type === "NULL") return { NULL: true };
  const parsed = JSON.parse(text);
  if (type === "L" || type === "M") {
    return type === "L" ? { L: parsed.map(toDynamo) } : { M: toDynamoItem(parsed) };
  }
  return { [type]: parsed.map(String) };
}

// A value as a form field's text (the inverse of fromField).
export function toField(value) {
  const [type, inner] = Object.entries(value)[0];
  if (type === "S" || type === "N" || type === "B") return [type, inner];
  if (type === "BOOL") return [type, String(inner)];
  if (type === "NULL") return [type, ""];
  return [type, JSON.stringify(toPlain(value))];
}

// The key attributes of an item, given the key schema [{AttributeName, KeyType}].
export const keyOf = (item, schema) =>
  Object.fromEntries(schema.map(({ AttributeName }) => [AttributeName, item[AttributeName]]));
