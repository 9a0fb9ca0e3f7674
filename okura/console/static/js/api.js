// okura's APIs as the console calls them: DynamoDB's JSON API and DynamoDB Streams at
// POST /, the admin endpoints under /okura/ and Lambda's event-source-mapping API, every
// request signed (SigV4) with the user's keys, or with placeholder ones when access
// control is off (okura then only reads the region from the signature).
import { amzDate, canSign, sign } from "./sigv4.js";

const PLACEHOLDER = { accessKeyId: "okura-console", secretAccessKey: "okura-console" };
const AUTH_ERRORS = new Set(["UnrecognizedClientException", "MissingAuthenticationTokenException",
  "InvalidSignatureException", "IncompleteSignatureException"]);

class ApiError extends Error {
  constructor(type, message, status) {
    super(message);
    this.type = type;
    this.status = status;
  }
  // As DynamoDB words it: the error's name and its message, verbatim.
  toString() { return this.type ? `${this.type}: ${this.message}` : this.message; }
}

// Milliseconds to add to the browser's clock when signing: okura checks signatures
// against its own clock, which tests move forward (docs/admin.md).
let skew = 0;
const listeners = new Set();

export const session = {
  get region() { return localStorage.getItem("okura.region") || "us-east-1"; },
  set region(value) { localStorage.setItem("okura.region", value); },
  get credentials() {
    const kept = sessionStorage.getItem("okura.credentials");
    return kept ? JSON.parse(kept) : null;
  },
  set credentials(value) {
    if (value) sessionStorage.setItem("okura.credentials", JSON.stringify(value));
    else sessionStorage.removeItem("okura.credentials");
  },
};

// Called with the error whenever okura refuses the console's keys (the page asks for
// others).
export const onAuthFailure = (listener) => listeners.add(listener);

async function signed(method, url, headers, body, region) {
  const credentials = session.credentials || PLACEHOLDER;
  const when = new Date(Date.now() + skew);
  if (!canSign()) {
    // not a secure context: an unsigned scope, enough for okura with --auth off
    const stamp = amzDate(when);
    return { ...headers, "x-amz-date": stamp, authorization: "AWS4-HMAC-SHA256 Credential="
      + `${credentials.accessKeyId}/${stamp.slice(0, 8)}/${region}/dynamodb/aws4_request, `
      + "SignedHeaders=host;x-amz-date, Signature=0" };
  }
  return { ...headers, ...await sign({ method, url, headers, body, credentials, region, when }) };
}

// okura's "Signature expired" / "not yet current" name its own time (the DynamoDB API's
// InvalidSignatureException, an admin endpoint's 403): sign with that.
function corrected(error) {
  const found = /Signature (?:expired|not yet current): .*\((\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z [+-] 15 min\.\)/
    .exec(error.message);
  if (!found) return false;
  const [, y, mo, d, h, mi, s] = found;
  skew = Date.UTC(+y, mo - 1, +d, +h, +mi, +s) - Date.now();
  return true;
}

async function send(method, url, headers, body, region, retry = true) {
  const response = await fetch(url, {
    method, body, headers: await signed(method, url, headers, body, region),
  });
  const text = await response.text();
  let parsed = null;
  try { parsed = text ? JSON.parse(text) : {}; } catch { parsed = { message: text }; }
  if (response.ok) return parsed;
  const type = (parsed.__type || response.headers.get("x-amzn-ErrorType") || parsed.Type || "")
    .split("#").pop().split(":")[0];
  const error = new ApiError(type, parsed.message || parsed.Message || parsed.error ||
    `HTTP ${response.status}`, response.status);
  if (retry && corrected(error)) return send(method, url, headers, body, region, false);
  if (AUTH_ERRORS.has(type) || (response.status === 403 && url.startsWith("/okura/")
      && /Exception: /.test(error.message))) {
    listeners.forEach((listener) => listener(error));
  }
  throw error;
}

// A DynamoDB operation (or a DynamoDB Streams one: `streams`), in the chosen region.
export function ddb(operation, request = {}, { streams = false, region } = {}) {
  const target = (streams ? "DynamoDBStreams_20120810." : "DynamoDB_20120810.") + operation;
  return send("POST", "/", {
    "content-type": "application/x-amz-json-1.0", "x-amz-target": target,
  }, JSON.stringify(request), region || session.region);
}

// An admin endpoint (docs/admin.md): GET without a body, else a JSON body.
export function admin(method, path, body) {
  return send(method, "/okura/" + path, { "content-type": "application/json" },
    body === undefined ? undefined : JSON.stringify(body), session.region);
}

// Lambda's event-source-mapping API (docs/triggers.md).
export function lambda(method, path, body) {
  return send(method, "/2015-03-31/" + path, { "content-type": "application/json" },
    body === undefined ? undefined : JSON.stringify(body), session.region);
}

// Every page of a paginated list operation: `key` names the list in each reply.
export async function all(operation, request, key, tokenOut, tokenIn, options) {
  const found = [];
  let token;
  do {
    const reply = await ddb(operation, token ? { ...request, [tokenIn]: token } : request,
      options);
    found.push(...(reply[key] || []));
    token = reply[tokenOut];
  } while (token);
  return found;
}
