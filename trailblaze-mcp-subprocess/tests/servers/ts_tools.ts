// A TypeScript MCP tool server for the tests (official SDK), run by bun or by node + tsx.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const P = process.env.TS_TOOLS_PREFIX ?? "ts";
const server = new McpServer({ name: "ts-tools", version: "2.0.0" });
const text = (t: string) => ({ content: [{ type: "text" as const, text: t }] });

// Tier 1: arguments only.
server.registerTool(`${P}_echo`, { description: "Echo a text back.", inputSchema: { text: z.string() } },
  async ({ text: t }) => text(`echo: ${t}`));

// Tier 2: destructures the legacy _trailblazeContext argument envelope.
server.registerTool(`${P}_context`, {
  description: "Report the device platform and memory.x from the context envelope.",
  inputSchema: { _trailblazeContext: z.any().optional() },
}, async ({ _trailblazeContext }: any, extra: any) => {
  const ctx = _trailblazeContext ?? {};
  return {
    content: [{ type: "text" as const, text: `${ctx.device?.platform}:${ctx.memory?.x}` }],
    structuredContent: { envelope: ctx, meta: extra._meta ?? null },
  };
});

server.registerTool(`${P}_driverOnly`, {
  description: "Registered for one driver only.",
  _meta: { "trailblaze/supportedDrivers": ["android-ondevice-accessibility"] },
}, async () => text("driver only"));

server.registerTool(`${P}_hostOnly`, { description: "Needs the host agent.", _meta: { "trailblaze/requiresHost": true } },
  async () => text("host only"));

server.registerTool(`${P}_otherToolset`, { description: "Pushed into another toolset.", _meta: { "trailblaze/toolset": "otherToolset" } },
  async () => text("other"));

server.registerTool(`${P}_env`, { description: "Report environment variables.", inputSchema: { names: z.array(z.string()) } },
  async ({ names }) => ({ ...text("env"), structuredContent: Object.fromEntries(names.map((n) => [n, process.env[n] ?? null]).concat([["cwd", process.cwd()]])) }));

server.registerTool(`${P}_remember`, { description: "Write memory.", inputSchema: { key: z.string(), value: z.string() } },
  async ({ key, value }) => ({ ...text(`remembered ${key}`), _meta: { trailblaze: { memoryDelta: { [key]: value } } } }));

server.registerTool(`${P}_delegate`, { description: "Delegate to rememberValue.", inputSchema: { key: z.string(), value: z.string() } },
  async ({ key, value }) => ({
    ...text("delegating"),
    structuredContent: { _trailblaze_delegates: [{ tool: "rememberValue", args: { variable: key, value } }] },
  }));

server.registerTool(`${P}_callback`, { description: "Call Trailblaze back: rememberValue, then dumpMemory.", inputSchema: { key: z.string(), value: z.string() } },
  async ({ key, value }, extra: any) => {
    const tb = extra._meta?.trailblaze;
    const call = async (tool_name: string, args: object) => {
      const res = await fetch(`${tb.baseUrl}/scripting/callback`, {
        method: "POST", headers: { "content-type": "application/json" },
        body: JSON.stringify({ version: 1, session_id: tb.sessionId, invocation_id: tb.invocationId, callback_token: tb.callbackToken,
          action: { type: "call_tool", tool_name, arguments_json: JSON.stringify(args) } }),
      });
      const body: any = await res.json();
      if (body.result?.type !== "call_tool_result" || !body.result.success) throw new Error(JSON.stringify(body));
      return body.result;
    };
    await call("rememberValue", { variable: key, value });
    const mem = await call("dumpMemory", {});
    return { ...text(`memory has ${key}`), structuredContent: { memory: mem.structured_content } };
  });

server.registerTool(`${P}_die`, { description: "Exit mid-call." }, async () => {
  console.error("ts_die: exiting on purpose");
  process.exit(4);
});

server.connect(new StdioServerTransport()).catch((e) => { console.error(e); process.exit(1); });
console.error("ts-tools ready");
