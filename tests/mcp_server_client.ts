// A coding agent's side of `trailblaze mcp`, written against the official TypeScript MCP SDK
// (@modelcontextprotocol/sdk): spawn the server over stdio, connect a browser on the example shop,
// sign in by refs, verify, save the trail. Prints one JSON line with what it saw.
// Usage: mcp_server_client.ts <trailblaze executable> <workspace> <password> <trail file>
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

const [trailblaze, workspace, password, file] = process.argv.slice(2);
const env: Record<string, string> = {};
for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;

const transport = new StdioClientTransport({
  command: trailblaze,
  args: ["mcp", "--secret", `password=${password}`, "--output-dir", "logs"],
  cwd: workspace,
  env,
  stderr: "inherit",
});
const client = new Client({ name: "node-agent", version: "1.0.0" });
let listChanged = 0;
client.setNotificationHandler(ToolListChangedNotificationSchema, async () => { listChanged += 1; });
await client.connect(transport);

type Result = { content: Array<{ type: string; text?: string }>; isError?: boolean; structuredContent?: unknown };
const texts: string[] = [];
async function call(name: string, args: Record<string, unknown>, step?: string): Promise<string> {
  const result = (await client.callTool({ name, arguments: args, _meta: step ? { "trailblaze/step": step } : undefined })) as Result;
  const text = result.content.map((c) => c.text ?? "").join("\n");
  texts.push(text);
  if (result.isError) throw new Error(`${name}: ${text}`);
  return text;
}
function ref(snapshot: string, element: string): string {
  const line = snapshot.split("\n").find((l) => l.includes(element));
  const found = line?.match(/\[([a-z][a-z0-9]*\d)\]/);
  if (!found) throw new Error(`${element} is not on screen:\n${snapshot}`);
  return found[1];
}

const server = client.getServerVersion();
const before = (await client.listTools()).tools.map((t) => t.name);
await call("device", { action: "WEB" });
const after = (await client.listTools()).tools.map((t) => t.name);
await call("web_navigate", { url: "/" }, "Open the shop's sign-in page");
const snapshot = await call("snapshot", {});
await call("web_type", { ref: ref(snapshot, 'textbox "Email"'), text: "hiker@example.com" }, "Sign in");
await call("web_fillSecret", { ref: ref(snapshot, 'textbox "Password"'), value: "{{password}}" }, "Sign in");
await call("web_click", { ref: ref(snapshot, 'button "Sign in"') }, "Sign in");
await call("verify", { assertion: "The header welcomes the user by email",
                       tools: [{ web_verifyTextVisible: { text: "Welcome, hiker@example.com" } }] });
await call("trail", { action: "SAVE", file });
await client.close();
console.log(JSON.stringify({ server, before, after, listChanged, texts }));
