// The MCP server Trailblaze starts for typed TypeScript tools (upstream: the wrapper
// InlineScriptToolServerSynthesizer.kt generates). It imports one author module, whose exports named
// in TRAILBLAZE_MODULE_TOOLS are tools `(args, envelope, client) => result` (`trailblaze.tool(...)` or a
// plain exported function), and serves them over MCP on stdin/stdout (newline-delimited JSON-RPC).
//
// Usage: bun --no-install run serve_module.mjs <author module>   (or node [--import tsx] …)
// Nothing is installed or fetched: `@trailblaze/scripting` is ./modules/@trailblaze/scripting (NODE_PATH),
// and a missing import stops the server with a message naming the module. Logs go to stderr.
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import * as readline from "node:readline";
import { createClient, createMemory, memoryChanges } from "./modules/@trailblaze/scripting/index.mjs";

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

async function loadAuthor() {
  mapScriptingPackage();
  try {
    return await import(pathToFileURL(author).href);
  } catch (error) {
    const missing = missingImport(error);
    if (missing) {
      process.stderr.write(`trailblaze: typed tool module ${author} imports '${missing}', which is not installed ` +
        `where the module can resolve it (Trailblaze never installs packages while running: install it next to ` +
        `the tool, e.g. npm install ${missing})\n`);
    } else {
      process.stderr.write(`trailblaze: typed tool module ${author} failed to load: ${error?.stack ?? error}\n`);
    }
    process.exit(1);
  }
}

const mod = await loadAuthor();
const handlers = new Map();
for (const tool of declared) {
  const handler = mod[tool.name] ?? mod.default?.[tool.name];
  if (typeof handler !== "function") {
    process.stderr.write(`trailblaze: ${author} does not export a tool named '${tool.name}' ` +
      "(export const <name> = trailblaze.tool<Args>(spec, handler))\n");
    process.exit(1);
  }
  handlers.set(tool.name, handler);
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
  if (!handler) {
    send({ jsonrpc: "2.0", id, error: { code: -32602, message: `unknown tool '${params?.name}'` } });
    return;
  }
  const { _trailblazeContext: envelope, ...args } = params.arguments ?? {};
  const meta = params._meta ?? {};
  const memory = createMemory(envelope?.memory ?? meta.trailblaze?.memory);
  const context = { memory, device: envelope?.device ?? meta.trailblaze?.device, target: meta.trailblaze?.target };
  try {
    const value = await handler(args, context, createClient(meta));
    const result = { content: [{ type: "text", text: textOf(value) }] };
    if (value !== null && typeof value === "object" && !Array.isArray(value)) result.structuredContent = value;
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
