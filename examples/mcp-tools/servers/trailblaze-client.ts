// A tiny Trailblaze callback client for TypeScript tool servers (the Python one ships in
// trailblaze_mcp_subprocess.client). It reads _meta.trailblaze of the request being handled, so every
// call lands in the session (and on the device) that called the tool. Every callback carries the call's
// callbackToken, a secret Trailblaze made for this one tool call: without it Trailblaze refuses.
export class TrailblazeClient {
  constructor(readonly baseUrl: string, readonly invocationId: string, private readonly callbackToken: string,
              readonly sessionId?: string) {}

  /** From the `extra` argument of an @modelcontextprotocol/sdk tool handler. */
  static fromContext(extra: { _meta?: Record<string, any> }): TrailblazeClient {
    const tb = extra._meta?.trailblaze;
    const invocationId = tb?.invocationId ?? extra._meta?.trailblazeInvocationId;
    const baseUrl = tb?.baseUrl ?? process.env.TRAILBLAZE_BASE_URL;
    if (!invocationId || !baseUrl) throw new Error("no Trailblaze invocation context in _meta: was this tool called by Trailblaze?");
    return new TrailblazeClient(baseUrl, invocationId, tb?.callbackToken ?? "", tb?.sessionId);
  }

  /** Run a Trailblaze tool; throws when Trailblaze refuses or the tool fails. */
  async callTool(toolName: string, args: Record<string, unknown> = {}): Promise<{ text: string; structured: any }> {
    const response = await fetch(`${this.baseUrl}/scripting/callback`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        version: 1, session_id: this.sessionId, invocation_id: this.invocationId, callback_token: this.callbackToken,
        action: { type: "call_tool", tool_name: toolName, arguments_json: JSON.stringify(args) },
      }),
    });
    const body: any = await response.json();
    const result = body?.result;
    if (!result || result.type === "error") throw new Error(result?.message ?? `callback failed (HTTP ${response.status})`);
    if (!result.success) throw new Error(`${toolName} failed: ${result.error_message}`);
    return { text: result.text_content, structured: result.structured_content };
  }
}
