// An example MCP tool server in TypeScript (official @modelcontextprotocol/sdk), run by Trailblaze
// with bun (or node + tsx) as a subprocess, one per session. Log with console.error: stdout is MCP.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";
import { TrailblazeClient } from "./trailblaze-client";

const server = new McpServer({ name: "mcpdemo-greeter", version: "1.0.0" });

// A plain tool that writes session memory through _meta.trailblaze.memoryDelta.
server.registerTool("mcpdemo_greet", {
  description: "Greet someone and remember the greeting as `greeting`.",
  inputSchema: { name: z.string().describe("Who to greet") },
}, async ({ name }) => ({
  content: [{ type: "text", text: `Hello, ${name}!` }],
  _meta: { trailblaze: { memoryDelta: { greeting: `Hello, ${name}!` } } },
}));

// A delegating tool: Trailblaze runs (and records) the calls it returns.
server.registerTool("mcpdemo_greetTeam", {
  description: "Greet every member of a team, one mcpdemo_greet each.",
  inputSchema: { names: z.array(z.string()) },
  _meta: { "trailblaze/isRecordable": false },
}, async ({ names }) => ({
  content: [{ type: "text", text: `greeting ${names.length} people` }],
  structuredContent: { _trailblaze_delegates: names.map((name) => ({ tool: "mcpdemo_greet", args: { name } })) },
}));

// A tool that calls Trailblaze back (dumpMemory) and checks the session's memory.
server.registerTool("mcpdemo_checkGreeting", {
  description: "Check that the last greeting in memory greets the given name.",
  inputSchema: { name: z.string() },
}, async ({ name }, extra) => {
  const tb = TrailblazeClient.fromContext(extra);
  const memory = (await tb.callTool("dumpMemory")).structured ?? {};
  const ok = memory.greeting === `Hello, ${name}!`;
  console.error(`greeter: checked greeting for ${name}: ${ok}`);
  return {
    content: [{ type: "text", text: ok ? `${name} was greeted` : `expected a greeting for ${name}, memory has ${JSON.stringify(memory.greeting)}` }],
    isError: !ok,
  };
});

server.connect(new StdioServerTransport()).catch((error) => {
  console.error(error);
  process.exit(1);
});
