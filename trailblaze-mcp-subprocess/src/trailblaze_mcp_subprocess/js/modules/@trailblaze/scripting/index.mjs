// Trailblaze for Python's `@trailblaze/scripting`: upstream's TypeScript SDK surface for tool modules —
// `trailblaze` / `tool` (typed `tool<Args>(spec?, handler)` and imperative `tool(name, spec, handler)`),
// `run`, `fromMeta`, `selectors`, `captureViewHierarchy`, `runConditionalActions` and
// `ConditionalActionFailedError`, `z`, and `@trailblaze/scripting/testing` (testing.mjs); inside a
// handler `ctx.tools.<name>(args)`, `ctx.memory`, `ctx.device`, `ctx.target`. Author modules import it by
// that package name; the server wrapper (serve_module.mjs) maps the name to this directory, so nothing
// is installed and nothing is fetched.
//
// A tool is a function `(args, envelope, client) => Promise<result>`, the shape upstream's wrapper calls.
// `ctx.tools.x(args)` posts to Trailblaze's authenticated callback (`_meta.trailblaze`: baseUrl,
// sessionId, invocationId, callbackToken of the call being handled; see docs/mcp-tools.md).

export { selectors } from "./selectors.mjs";
export { captureViewHierarchy } from "./view-hierarchy.mjs";
export { ConditionalActionFailedError, runConditionalActions } from "./conditional-action.mjs";
export { z } from "./zod.mjs";

const MEMORY_DELTA = Symbol.for("trailblaze.memoryDelta");
const PENDING = Symbol.for("trailblaze.pendingTools");
const SERVED = Symbol.for("trailblaze.servedByWrapper");

function fetchTimeoutMs() {
  const parsed = Number.parseInt(process.env.TRAILBLAZE_CLIENT_FETCH_TIMEOUT_MS ?? "", 10);
  return Number.isFinite(parsed) && parsed > 0 ? parsed : 122_000;
}

/** A client bound to one tool call's callback credentials. */
export function createClient(meta) {
  const tb = meta?.trailblaze ?? {};
  async function callTool(name, args) {
    if (!tb.baseUrl || !tb.invocationId) {
      throw new Error(`ctx.tools.${name}: this call carries no Trailblaze callback context (_meta.trailblaze); ` +
                      "was the tool called by Trailblaze?");
    }
    const response = await fetch(`${tb.baseUrl}/scripting/callback`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      signal: AbortSignal.timeout(fetchTimeoutMs()),
      body: JSON.stringify({
        version: 1, session_id: tb.sessionId, invocation_id: tb.invocationId, callback_token: tb.callbackToken,
        action: { type: "call_tool", tool_name: name, arguments_json: JSON.stringify(args ?? {}) },
      }),
    });
    let body;
    try {
      body = await response.json();
    } catch {
      throw new Error(`ctx.tools.${name}: Trailblaze answered HTTP ${response.status} without JSON`);
    }
    const result = body?.result;
    if (!result || result.type === "error") {
      throw new Error(`ctx.tools.${name}: ${result?.message ?? body?.error?.message ?? `HTTP ${response.status}`}`);
    }
    if (!result.success) throw new Error(`${name} failed: ${result.error_message}`);
    return { textContent: result.text_content ?? "", structuredContent: result.structured_content ?? null };
  }
  const tools = new Proxy({}, {
    get(_target, prop) {
      if (typeof prop !== "string" || prop === "then") return undefined;
      return async (args) => {
        const envelope = await callTool(prop, args);
        return envelope.structuredContent ?? envelope.textContent;
      };
    },
  });
  return { callTool, tools };
}

/** Session memory as the call saw it; `set`/`delete` become the result's memory delta. */
export function createMemory(values) {
  const current = { ...(values ?? {}) };
  const delta = {};
  const deletions = new Set();
  return {
    get: (key) => current[key],
    has: (key) => Object.prototype.hasOwnProperty.call(current, key),
    set(key, value) {
      current[key] = String(value);
      delta[key] = String(value);
      deletions.delete(key);
    },
    delete(key) {
      delete current[key];
      delete delta[key];
      deletions.add(key);
    },
    keys: () => Object.keys(current),
    setJson(key, value) {
      if (value === undefined) this.delete(key);
      else this.set(key, JSON.stringify(value));
    },
    getJson(key) {
      if (current[key] === undefined) return undefined;
      try {
        return JSON.parse(current[key]);
      } catch {
        return undefined;
      }
    },
    interpolate: (text) => String(text).replace(/\{\{\s*([\w.-]+)\s*\}\}|\$\{([\w.-]+)\}/g,
      (whole, a, b) => (current[a ?? b] !== undefined ? current[a ?? b] : whole)),
    toJSON: () => ({ ...current }),
    [MEMORY_DELTA]: () => ({ delta: { ...delta }, deletions: [...deletions] }),
  };
}

export function memoryChanges(memory) {
  return memory && typeof memory[MEMORY_DELTA] === "function" ? memory[MEMORY_DELTA]() : null;
}

function defineTool(handler) {
  if (typeof handler !== "function") {
    throw new TypeError("trailblaze.tool(spec, handler): the handler must be a function");
  }
  const tool = async (args, envelope, client) => {
    const ctx = {
      tools: client.tools,
      memory: envelope?.memory && typeof envelope.memory.get === "function" ? envelope.memory
        : createMemory(envelope?.memory),
      device: envelope?.device,
      target: envelope?.target,
    };
    return handler(args != null && typeof args === "object" && !Array.isArray(args) ? args : {}, ctx);
  };
  return tool;
}

/** A logger for one tool: lines on stderr (the tool's log), never on the protocol channel. */
export function createLogger(toolName) {
  const emit = (level) => (message, fields) => {
    let suffix = "";
    if (fields !== undefined) {
      try {
        suffix = " " + JSON.stringify(fields);
      } catch {
        suffix = " " + String(fields);
      }
    }
    process.stderr.write(`[${toolName}] [${level}] ${message}${suffix}\n`);
  };
  return { debug: emit("debug"), info: emit("info"), warn: emit("warn"), error: emit("error") };
}

const PLATFORMS = new Set(["ios", "android", "web"]);

function targetOf(raw) {
  if (raw === null || typeof raw !== "object" || typeof raw.id !== "string" || !Array.isArray(raw.appIds)
      || !raw.appIds.every((id) => typeof id === "string")) return undefined;
  const text = (value) => (typeof value === "string" ? value : undefined);
  const baseUrls = Array.isArray(raw.baseUrls) && raw.baseUrls.every((u) => typeof u === "string")
    ? raw.baseUrls : undefined;
  const appId = text(raw.appId);
  const resolvedBaseUrl = text(raw.resolvedBaseUrl);
  const pick = (found, fallback) => (found ? found : (fallback?.trim() || undefined));
  return {
    id: raw.id, displayName: text(raw.displayName), appIds: raw.appIds, appId, baseUrls, resolvedBaseUrl,
    resolveAppId: (options) => pick(appId || raw.appIds[0], options?.defaultAppId),
    resolveBaseUrl: (options) => pick(resolvedBaseUrl || baseUrls?.[0], options?.defaultBaseUrl),
  };
}

/**
 * The `TrailblazeContext` of a call from its MCP `_meta` (upstream's `fromMeta`): session and invocation
 * ids, callback base URL, device, target and memory; `undefined` when the envelope is missing or
 * malformed (a call not made by Trailblaze), exactly where upstream answers `undefined`.
 */
export function fromMeta(meta, logger) {
  const tb = meta !== null && typeof meta === "object" ? meta.trailblaze : undefined;
  if (tb === null || typeof tb !== "object") return undefined;
  if (typeof tb.sessionId !== "string" || typeof tb.invocationId !== "string") return undefined;
  const device = tb.device;
  if (device === null || typeof device !== "object" || !PLATFORMS.has(device.platform)) return undefined;
  if (typeof device.widthPixels !== "number" || typeof device.heightPixels !== "number"
      || typeof device.driverType !== "string") return undefined;
  return {
    baseUrl: typeof tb.baseUrl === "string" ? tb.baseUrl : undefined,
    runtime: tb.runtime === "ondevice" ? "ondevice" : undefined,
    sessionId: tb.sessionId,
    invocationId: tb.invocationId,
    device: {
      platform: device.platform, widthPixels: device.widthPixels, heightPixels: device.heightPixels,
      driverType: device.driverType, instanceId: typeof device.instanceId === "string" ? device.instanceId : undefined,
    },
    target: targetOf(tb.target),
    memory: createMemory(tb.memory !== null && typeof tb.memory === "object" ? tb.memory : undefined),
    logger: logger ?? { debug() {}, info() {}, warn() {}, error() {} },
  };
}

function pendingTools() {
  globalThis[PENDING] ??= new Map();
  return globalThis[PENDING];
}

/**
 * Upstream's three forms: `tool(handler)` and `tool(spec, handler)` define a typed tool (exported as
 * `export const <name> = trailblaze.tool<Args>(...)`); `tool(name, spec, handler)` registers an
 * imperative tool `(args, ctx, client) => result`, served once `run()` is awaited.
 */
export function tool(first, second, third) {
  if (typeof first === "string") {
    if (typeof third !== "function") {
      throw new TypeError(`trailblaze.tool("${first}", spec, handler): the handler must be a function`);
    }
    pendingTools().set(first, { name: first, spec: second ?? {}, handler: third });
    return undefined;
  }
  const handler = typeof first === "function" ? first : second;
  const typed = defineTool(handler);
  if (typeof first === "object" && first !== null) typed.spec = first;
  return typed;
}

/**
 * Start serving the imperative tools. Trailblaze serves a tool module through its own wrapper
 * (serve_module.mjs), which reads the registrations after the module loaded; `run()` then only
 * resolves. Outside that wrapper there is no server to start here (Trailblaze ships no MCP SDK), and
 * saying so beats a module that silently serves nothing.
 */
export async function run(_options = {}) {
  if (globalThis[SERVED]) return;
  throw new Error("trailblaze.run(): this module is not being served by Trailblaze. Declare it as a tool " +
    "(tools/<name>.yaml with script: pointing here, or a typed tools/<name>.ts) and Trailblaze serves it.");
}

export const trailblaze = { tool, run };

export default trailblaze;
