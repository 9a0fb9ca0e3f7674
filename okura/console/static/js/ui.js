// Small DOM helpers shared by the pages.

// An element: h("button", {onclick, class: "x"}, "text", child, ...). Attributes that
// are functions are listeners; false/null ones are left out.
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value === false || value === null || value === undefined) continue;
    if (typeof value === "function") element.addEventListener(name.slice(2), value);
    else if (name in element && typeof element[name] !== "string" && name !== "list") {
      element[name] = value;
    } else element.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

let fields = 0;
// A labelled form field: the label wraps its caption and control.
export function field(caption, control, hint) {
  control.id ||= `f${++fields}`;
  return h("label", { class: "field", for: control.id }, h("span", {}, caption), control,
    hint ? h("small", {}, hint) : null);
}

export const input = (attributes = {}) => h("input", { type: "text", ...attributes });

export function select(options, value, attributes = {}) {
  return h("select", attributes, options.map((option) => {
    const [val, text] = Array.isArray(option) ? option : [option, option];
    return h("option", { value: val, selected: val === value }, text);
  }));
}

// A message area: errors as DynamoDB words them, or notes.
export function status() {
  const element = h("div", { class: "status", role: "status", "aria-live": "polite" });
  element.error = (error) => {
    element.className = "status error";
    element.textContent = String(error);
  };
  element.note = (text) => {
    element.className = "status note";
    element.textContent = text;
  };
  element.clear = () => {
    element.className = "status";
    element.textContent = "";
  };
  return element;
}

// Run an action; its error is shown in `where` (a status()).
export async function act(where, action) {
  where.clear?.();
  try {
    return await action();
  } catch (error) {
    where.error(error);
    return undefined;
  }
}

// A grid: columns [{title, value: row -> text or Node, sort?}], rows; `onpick(row)`
// when a row is chosen (click or Enter).
export function grid(columns, rows, { onpick, caption, empty = "Nothing here." } = {}) {
  if (!rows.length) return h("p", { class: "empty" }, empty);
  return h("div", { class: "grid-wrap" }, h("table", { class: "grid" },
    caption ? h("caption", {}, caption) : null,
    h("thead", {}, h("tr", {}, columns.map((column) => h("th", { scope: "col" },
      column.sort ? h("button", { class: "sort", onclick: column.sort,
        "aria-sort": column.sorted || "none" }, column.title, column.sorted === "ascending"
        ? " ▲" : column.sorted === "descending" ? " ▼" : "") : column.title)))),
    h("tbody", {}, rows.map((row) => h("tr", onpick ? {
      tabindex: 0, class: "pick",
      onclick: () => onpick(row),
      onkeydown: (event) => { if (event.key === "Enter") onpick(row); },
    } : {}, columns.map((column) => h("td", {}, column.value(row))))))));
}

// A modal dialog; returns it shown. `content` gets a close() function.
export function dialog(title, content) {
  const box = h("dialog", { "aria-label": title }, h("h2", {}, title));
  const close = () => { box.close(); box.remove(); };
  box.append(content(close));
  box.addEventListener("close", () => box.remove());
  document.body.append(box);
  box.showModal();
  return box;
}

export const when = (epochSeconds) => epochSeconds === undefined || epochSeconds === null
  ? "" : new Date(epochSeconds * 1000).toISOString().replace("T", " ").replace(/\.\d+Z$/, "Z");

export function bytes(count) {
  if (count === undefined) return "";
  const units = ["B", "KB", "MB", "GB", "TB"];
  let value = count;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) { value /= 1024; unit += 1; }
  return `${unit ? value.toFixed(1) : value} ${units[unit]}`;
}
