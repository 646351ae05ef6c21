// Trailblaze for Python's `@trailblaze/scripting`: the part of upstream's TypeScript SDK a typed tool
// module uses — `trailblaze.tool<Args>(spec?, handler)` and, inside a handler, `ctx.tools.<name>(args)`,
// `ctx.memory`, `ctx.device`, `ctx.target`. Author modules import it by that package name; the server
// wrapper (serve_module.mjs) maps the name to this file, so nothing is installed and nothing is fetched.
//
// A tool is a function `(args, envelope, client) => Promise<result>`, the shape upstream's wrapper calls.
// `ctx.tools.x(args)` posts to Trailblaze's authenticated callback (`_meta.trailblaze`: baseUrl,
// sessionId, invocationId, callbackToken of the call being handled; see docs/mcp-tools.md).

const MEMORY_DELTA = Symbol.for("trailblaze.memoryDelta");

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

export const trailblaze = {
  /** `trailblaze.tool<Args>(handler)` or `trailblaze.tool<Args>(spec, handler)`; the spec is read statically. */
  tool(specOrHandler, maybeHandler) {
    const handler = typeof specOrHandler === "function" ? specOrHandler : maybeHandler;
    const tool = defineTool(handler);
    if (typeof specOrHandler === "object" && specOrHandler !== null) tool.spec = specOrHandler;
    return tool;
  },
};

export default trailblaze;
