// AWS Signature Version 4 with the browser's SubtleCrypto (secure contexts only:
// https, or http on localhost). okura verifies it when access control is enforced
// (docs/access.md); otherwise it only reads the region and key from it.
const encoder = new TextEncoder();

function hex(buffer) {
  return Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, "0")).join("");
}

async function sha256(text) {
  return hex(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
}

async function hmac(key, text) {
  const raw = typeof key === "string" ? encoder.encode(key) : key;
  const imported = await crypto.subtle.importKey(
    "raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return crypto.subtle.sign("HMAC", imported, encoder.encode(text));
}

// SigV4's percent-encoding: everything but unreserved characters.
function encode(text) {
  return encodeURIComponent(text).replace(/[!'()*]/g,
    (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase());
}

function canonicalQuery(search) {
  return [...new URLSearchParams(search)]
    .map(([name, value]) => [encode(name), encode(value)])
    .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`).join("&");
}

// X-Amz-Date's form: 20260101T120000Z
export const amzDate = (when) => when.toISOString().replace(/[-:]/g, "").replace(/\.\d+/, "");

export const canSign = () => !!(globalThis.crypto && crypto.subtle);

// Headers to add to a request (method, path with query, headers by lower-case name,
// body text) signed with `credentials` for `region`, at `when` (a Date).
export async function sign({ method, url, headers, body, credentials, region, when }) {
  const service = "dynamodb";
  const stamp = amzDate(when);
  const date = stamp.slice(0, 8);
  const added = { "x-amz-date": stamp };
  if (credentials.sessionToken) added["x-amz-security-token"] = credentials.sessionToken;
  const all = { ...headers, ...added, host: location.host };
  const names = Object.keys(all).map((n) => n.toLowerCase()).sort();
  const lower = Object.fromEntries(Object.entries(all).map(([n, v]) => [n.toLowerCase(), v]));
  const signedHeaders = names.join(";");
  const [path, search = ""] = url.split("?");
  const canonical = [
    method,
    // the path as sent, encoded once more (as the SDKs sign it, and okura checks it)
    path.split("/").map(encode).join("/"),
    canonicalQuery(search),
    names.map((n) => `${n}:${String(lower[n]).trim().replace(/\s+/g, " ")}\n`).join(""),
    signedHeaders,
    await sha256(body || ""),
  ].join("\n");
  const scope = `${date}/${region}/${service}/aws4_request`;
  const toSign = ["AWS4-HMAC-SHA256", stamp, scope, await sha256(canonical)].join("\n");
  let key = await hmac("AWS4" + credentials.secretAccessKey, date);
  for (const part of [region, service, "aws4_request"]) key = await hmac(key, part);
  const signature = hex(await hmac(key, toSign));
  added.authorization = `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${scope}, ` +
    `SignedHeaders=${signedHeaders}, Signature=${signature}`;
  return added;
}
