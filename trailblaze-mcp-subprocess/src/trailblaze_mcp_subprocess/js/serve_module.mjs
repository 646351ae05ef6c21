// The MCP server Trailblaze starts for typed TypeScript tools (upstream: the wrapper
// InlineScriptToolServerSynthesizer.kt generates). It imports one author module, whose exports named
// in TRAILBLAZE_MODULE_TOOLS are tools `(args, envelope, client) => result` (`trailblaze.tool(...)` or a
// plain exported function), and serves them over MCP on stdin/stdout (newline-delimited JSON-RPC).
//
// Usage: bun --no-install run serve_module.mjs <author module>   (or node [--import tsx] …)
// Nothing is installed or fetched: `@trailblaze/scripting` is ./modules/@trailblaze/scripting (NODE_PATH),
// and a module that fails to load fails only its tools' calls, naming the module and why. Logs go to stderr.
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import * as readline from "node:readline";
import { createClient, createLogger, createMemory, fromMeta, memoryChanges } from "./modules/@trailblaze/scripting/index.mjs";

const author = process.argv[2];
const declared = JSON.parse(process.env.TRAILBLAZE_MODULE_TOOLS ?? "[]");

// stdout is the protocol channel and belongs to send() alone: whatever the author's module prints —
// console.log/info/debug/dir/table (the first thing an author adds to debug), or process.stdout.write from
// a library — goes to stderr, which Trailblaze keeps as the tool server's log. Done before the module is
// imported, so its top-level code is covered too.
const protocolOut = process.stdout.write.bind(process.stdout);
const { Console } = await import("node:console");
globalThis.console = new Console({ stdout: process.stderr, stderr: process.stderr });
process.stdout.write = (chunk, encoding, callback) => process.stderr.write(chunk, encoding, callback);

function mapScriptingPackage() {
  // Bun and require() (a .ts module loaded as CommonJS) find `@trailblaze/scripting` through NODE_PATH,
  // which Trailblaze points at ./modules; Node's ESM loader ignores NODE_PATH, so it gets a resolve hook.
  if (typeof Bun !== "undefined") return;
  createRequire(import.meta.url)("node:module").register(new URL("./resolve_hook.mjs", import.meta.url).href);
}

function missingImport(error) {
  const text = String(error?.message ?? error);
  const match = /Cannot find (?:module|package) ['"]([^'"]+)['"]/.exec(text);
  return match ? match[1] : null;
}

function missingExport(error) {
  // Node: "The requested module 'x' does not provide an export named 'y'";
  // Bun: "Export named 'y' not found in module '/path/of/x'".
  const text = String(error?.message ?? error);
  const node = /requested module ['"]([^'"]+)['"] does not provide an export named ['"]([^'"]+)['"]/.exec(text);
  if (node) return { module: node[1], name: node[2] };
  const bun = /Export named ['"]([^'"]+)['"] not found in module ['"]([^'"]+)['"]/.exec(text);
  if (!bun) return null;
  const module = bun[2].includes("/modules/@trailblaze/scripting/") ? "@trailblaze/scripting" : bun[2];
  return { module, name: bun[1] };
}

function loadFailure(error) {
  const missing = missingImport(error);
  if (missing) {
    return `it imports '${missing}', which is not installed where the module can resolve it (Trailblaze never ` +
      `installs packages while running: install it next to the tool, e.g. npm install ${missing})`;
  }
  const absent = missingExport(error);
  if (absent) return `it imports '${absent.name}' from '${absent.module}', which has no such export`;
  return `${error?.stack ?? error}`.split("\n").slice(0, 3).join(" | ");
}

// A module that cannot load, or does not export a declared tool, fails only the calls of its tools: the
// server still answers initialize and tools/list, so every other tool (and every trail that never calls
// these) works. The reason is logged once on stderr and is every call's error.
async function loadAuthor() {
  mapScriptingPackage();
  try {
    return { mod: await import(pathToFileURL(author).href), failure: null };
  } catch (error) {
    const failure = `typed tool module ${author} failed to load: ${loadFailure(error)}`;
    process.stderr.write(`trailblaze: ${failure}\n`);
    return { mod: {}, failure };
  }
}

function imperative(name) {
  // `trailblaze.tool(name, spec, handler)` + `await trailblaze.run()`: upstream's handler takes
  // (args, ctx, client), ctx being the call's TrailblazeContext with the memory whose changes we report.
  const registered = globalThis[Symbol.for("trailblaze.pendingTools")]?.get(name);
  if (!registered) return undefined;
  const handler = (args, context, client) => {
    const ctx = fromMeta(context.meta, createLogger(name));
    if (ctx) ctx.memory = context.memory;
    return registered.handler(args, ctx, client);
  };
  handler.returnsMcpResult = true;  // upstream's imperative handlers return the CallToolResult itself
  return handler;
}

globalThis[Symbol.for("trailblaze.servedByWrapper")] = true;
const { mod, failure } = await loadAuthor();
const handlers = new Map();
const unavailable = new Map();
for (const tool of declared) {
  const handler = mod[tool.name] ?? mod.default?.[tool.name] ?? imperative(tool.name);
  if (failure) {
    unavailable.set(tool.name, failure);
  } else if (typeof handler !== "function") {
    const why = `${author} does not export a tool named '${tool.name}' ` +
      "(export const <name> = trailblaze.tool<Args>(spec, handler))";
    process.stderr.write(`trailblaze: ${why}\n`);
    unavailable.set(tool.name, why);
  } else {
    handlers.set(tool.name, handler);
  }
}

function send(message) {
  protocolOut(JSON.stringify(message) + "\n");
}

function textOf(value) {
  if (value === undefined || value === null) return "";
  return typeof value === "string" ? value : JSON.stringify(value);
}

async function callTool(id, params) {
  const handler = handlers.get(params?.name);
  if (unavailable.has(params?.name)) {
    const text = `tool '${params.name}' is unavailable: ${unavailable.get(params.name)}`;
    send({ jsonrpc: "2.0", id, result: { isError: true, content: [{ type: "text", text }] } });
    return;
  }
  if (!handler) {
    send({ jsonrpc: "2.0", id, error: { code: -32602, message: `unknown tool '${params?.name}'` } });
    return;
  }
  const { _trailblazeContext: envelope, ...args } = params.arguments ?? {};
  const meta = params._meta ?? {};
  const memory = createMemory(envelope?.memory ?? meta.trailblaze?.memory);
  const context = { memory, device: envelope?.device ?? meta.trailblaze?.device, target: meta.trailblaze?.target,
    meta };
  try {
    const value = await handler(args, context, createClient(meta));
    const result = handler.returnsMcpResult && Array.isArray(value?.content) ? { ...value }
      : { content: [{ type: "text", text: textOf(value) }] };
    if (!handler.returnsMcpResult && value !== null && typeof value === "object" && !Array.isArray(value)) {
      result.structuredContent = value;
    }
    const changes = memoryChanges(memory);
    if (changes && (Object.keys(changes.delta).length || changes.deletions.length)) {
      result._meta = { trailblaze: { memoryDelta: changes.delta, memoryDeletions: changes.deletions } };
    }
    send({ jsonrpc: "2.0", id, result });
  } catch (error) {
    send({ jsonrpc: "2.0", id, result: { isError: true, content: [{ type: "text", text: String(error?.message ?? error) }] } });
  }
}

function handle(message) {
  const { id, method, params } = message;
  if (method === "initialize") {
    send({ jsonrpc: "2.0", id, result: {
      protocolVersion: params?.protocolVersion ?? "2025-06-18",
      capabilities: { tools: {} },
      serverInfo: { name: `trailblaze-typed-tools`, version: "1.0.0" },
    } });
  } else if (method === "tools/list") {
    send({ jsonrpc: "2.0", id, result: { tools: declared.map((t) => ({
      name: t.name, description: t.description ?? "", inputSchema: t.inputSchema ?? { type: "object" },
      ...(unavailable.has(t.name) ? { _meta: { "trailblaze/unavailable": unavailable.get(t.name) } } : {}),
    })) } });
  } else if (method === "tools/call") {
    callTool(id, params);
  } else if (method === "ping") {
    send({ jsonrpc: "2.0", id, result: {} });
  } else if (id !== undefined && id !== null) {
    send({ jsonrpc: "2.0", id, error: { code: -32601, message: `method not found: ${method}` } });
  }
}

const lines = readline.createInterface({ input: process.stdin });
lines.on("line", (line) => {
  if (!line.trim()) return;
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    process.stderr.write("trailblaze: ignoring a line on stdin that is not JSON\n");
    return;
  }
  handle(message);
});
lines.on("close", () => process.exit(0));
