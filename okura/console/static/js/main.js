// The console's shell: the router (#/page/argument), the region switcher and the
// access keys dialog.
import { onAuthFailure, session } from "./api.js";
import { canSign } from "./sigv4.js";
import { dialog, field, h, input } from "./ui.js";

const PAGES = {
  tables: () => import("./pages/tables.js"),
  items: () => import("./pages/items.js"),
  partiql: () => import("./pages/partiql.js"),
  streams: () => import("./pages/streams.js"),
  capacity: () => import("./pages/capacity.js"),
  operations: () => import("./pages/operations.js"),
};
const view = document.getElementById("view");
let leave = null; // what the shown page stops when it goes (its polling)
let shown = 0; // the route shown: a page that finishes loading after another started is dropped

async function route() {
  const [name = "tables", ...rest] = location.hash.replace(/^#\/?/, "").split("/");
  const page = PAGES[name] ? name : "tables";
  const showing = ++shown;
  if (leave) leave();
  leave = null;
  for (const link of document.querySelectorAll("nav a")) {
    link.toggleAttribute("aria-current", link.getAttribute("href") === `#/${page}`);
    if (link.hasAttribute("aria-current")) link.setAttribute("aria-current", "page");
  }
  document.title = `${page[0].toUpperCase()}${page.slice(1)} · okura console`;
  const module = await PAGES[page]();
  if (showing !== shown) return;
  view.replaceChildren();
  view.dataset.page = page;
  leave = module.render(view, rest.map(decodeURIComponent)) || null;
  if (showing > 1) view.focus({ preventScroll: true }); // keyboard and screen reader users land on the page
}

function askForKeys(reason) {
  if (document.querySelector("dialog.keys")) return;
  const kept = session.credentials || {};
  const key = input({ value: kept.accessKeyId || "", autocomplete: "username", required: true });
  const secret = input({ type: "password", value: kept.secretAccessKey || "",
    autocomplete: "current-password", required: true });
  const token = input({ value: kept.sessionToken || "" });
  const box = dialog("Access keys", (close) => h("form", {
    method: "dialog",
    onsubmit: (event) => {
      event.preventDefault();
      session.credentials = key.value ? { accessKeyId: key.value.trim(),
        secretAccessKey: secret.value, sessionToken: token.value.trim() || undefined } : null;
      close();
      route();
    },
  },
  reason ? h("p", { class: "status error" }, String(reason)) : null,
  h("p", {}, "okura enforces access control: the console acts with these keys, kept in ",
    "this tab only (sessionStorage)."),
  canSign() ? null : h("p", { class: "status error" },
    "This page is not a secure context (https, or http on localhost): the browser cannot sign."),
  field("Access key ID", key), field("Secret access key", secret),
  field("Session token (optional)", token),
  h("div", { class: "actions" },
    h("button", { type: "submit", class: "primary" }, "Use these keys"),
    h("button", { type: "button", onclick: () => {
      session.credentials = null;
      close();
      route();
    } }, "Forget keys"))));
  box.classList.add("keys");
}

const region = document.getElementById("region");
region.value = session.region;
region.addEventListener("change", () => {
  if (region.value.trim()) {
    session.region = region.value.trim();
    route();
  }
});
document.getElementById("keys").addEventListener("click", () => askForKeys());
document.querySelector(".skip").addEventListener("click", (event) => {
  event.preventDefault(); // "#view" is no route
  view.focus();
});
onAuthFailure((error) => askForKeys(error));
window.addEventListener("hashchange", route);
route();
