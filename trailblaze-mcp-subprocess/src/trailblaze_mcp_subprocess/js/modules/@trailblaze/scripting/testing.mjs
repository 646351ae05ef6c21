// `@trailblaze/scripting/testing`: upstream's helpers for unit-testing a tool without Trailblaze —
// a recording mock client with per-tool stubs, a client answering queued `findMatches` /
// `waitUntilNotVisible` results, and a mock context (device, target, memory, silent logger).
import { createMemory } from "./index.mjs";

const RESERVED = new Set(["then", "catch", "finally", "constructor", "prototype", "__proto__", "toString",
  "valueOf", "toJSON"]);

function scriptArgs(name, first, rest) {
  // `web_evaluate(fn, ...args)` / `web_evaluate("script")` / `web_evaluate({ script })`, as upstream's mock.
  if (typeof first === "function") return { script: `(${first.toString()}).apply(null, ${JSON.stringify(rest)})` };
  if (typeof first === "string") return { script: first };
  if (first !== null && typeof first === "object") return first;
  throw new Error(`mockClient.tools.${name}: expected a function, script string, or { script } object as ` +
    `the first argument; got ${first === null ? "null" : typeof first}.`);
}

export function createMockClient() {
  const calls = [];
  const stubs = new Map();
  const dispatch = async (name, args) => {
    calls.push({ tool: name, args });
    const stub = stubs.get(name);
    if (stub?.errorMessage) throw new Error(`trailblaze.client.callTool("${name}") tool failed: ${stub.errorMessage}`);
    const structured = stub?.structuredContent;
    return structured !== undefined && structured !== null ? structured : (stub?.textContent ?? "");
  };
  const tools = new Proxy({}, {
    get(_target, prop) {
      if (typeof prop !== "string" || RESERVED.has(prop)) return undefined;
      if (prop.trim() === "") {
        throw new Error(`mockClient.tools[${JSON.stringify(prop)}]: tool name must not be empty or whitespace-only.`);
      }
      if (prop === "web_evaluate") return async (first, ...rest) => dispatch(prop, scriptArgs(prop, first, rest));
      return async (args) => dispatch(prop, args ?? {});
    },
  });
  return {
    tools,
    calls,
    stub(toolName, response) {
      if (String(toolName).trim() === "") {
        throw new Error("createMockClient: stub() tool name must not be empty or whitespace-only.");
      }
      stubs.set(toolName, response);
    },
    reset() {
      calls.length = 0;
      stubs.clear();
    },
  };
}

export function createQueuedFindMatchesClient() {
  const calls = [];
  const queues = { findMatches: [], waitUntilNotVisible: [] };
  const take = (name, args) => {
    if (queues[name].length === 0) {
      throw new Error(`createQueuedFindMatchesClient: no more ${name} responses queued; received call with ` +
        `args=${JSON.stringify(args)}. Did the test forget a queue${name[0].toUpperCase()}${name.slice(1)}?`);
    }
    return queues[name].shift();
  };
  const tools = new Proxy({}, {
    get(_target, prop) {
      if (typeof prop !== "string" || prop === "then" || prop === "catch" || prop === "finally") return undefined;
      return async (args) => {
        calls.push({ tool: prop, args: args ?? {} });
        return prop in queues ? take(prop, args ?? {}) : "";
      };
    },
  });
  return {
    tools,
    calls,
    queueFindMatches: (responses) => void queues.findMatches.push(...responses),
    queueWaitUntilNotVisible: (responses) => void queues.waitUntilNotVisible.push(...responses),
  };
}

export function createMockContext(opts) {
  return {
    baseUrl: opts.baseUrl,
    runtime: opts.runtime === "ondevice" ? "ondevice" : undefined,
    sessionId: opts.sessionId ?? "mock-session",
    invocationId: opts.invocationId ?? "mock-invocation",
    device: {
      platform: opts.platform,
      widthPixels: opts.device?.widthPixels ?? 1080,
      heightPixels: opts.device?.heightPixels ?? 2400,
      driverType: opts.device?.driverType ?? opts.device?.driver ?? "mock-driver",
      driver: opts.device?.driver,
      instanceId: opts.device?.instanceId,
    },
    target: opts.target,
    memory: createMemory(Object.fromEntries(Object.entries(opts.memory ?? {}).filter(([, v]) => typeof v === "string"))),
    logger: { debug() {}, info() {}, warn() {}, error() {} },
  };
}
