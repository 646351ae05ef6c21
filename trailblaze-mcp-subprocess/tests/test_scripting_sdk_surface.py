"""The whole export surface of upstream's ``@trailblaze/scripting`` (issue 37 item 1), in a real tool
module served by our wrapper under bun and under node + tsx: ``selectors``, ``captureViewHierarchy``,
``runConditionalActions`` and ``ConditionalActionFailedError``, ``z``, ``fromMeta``, ``tool`` (typed and
imperative) with ``run``, and the ``@trailblaze/scripting/testing`` entry. The answers are those of
upstream's SDK sources at a022ca69 (``conditional-action.ts``, ``view-hierarchy.ts``, ``context.ts``,
``testing.ts``)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from trailblaze.driver import DeviceInfo
from trailblaze.tools.base import ToolSource
from trailblaze_mcp_subprocess.config import ServerSpec
from trailblaze_mcp_subprocess.spawn import launch_for

pytestmark = pytest.mark.node

MODULE = """
import {
  ConditionalActionFailedError, captureViewHierarchy, fromMeta, run, runConditionalActions, selectors, tool,
  trailblaze, z,
} from "@trailblaze/scripting";
import { createMockClient, createMockContext, createQueuedFindMatchesClient } from "@trailblaze/scripting/testing";

const BANNER = selectors.web({ ariaRole: "button", ariaNameRegex: "Close" });
const MATCH = { indexPath: [0, 2], bounds: { left: 1, top: 2, right: 3, bottom: 4 } };

export interface Empty {}

export const sdk_conditional = trailblaze.tool<Empty>(async () => {
  const client = createQueuedFindMatchesClient();
  client.queueFindMatches([[MATCH], []]);  // the capture sees the banner; the re-capture does not
  const closed: string[] = [];
  const snap = await captureViewHierarchy(client, [BANNER]);
  const first = await runConditionalActions(client, [
    { id: "close-banner", description: "Close it", condition: (s) => s.visible(BANNER),
      action: async () => { closed.push("banner"); }, postcondition: (s) => !s.visible(BANNER) },
    { id: "never", description: "", condition: () => false, action: async () => { closed.push("never"); } },
  ], snap);
  client.queueFindMatches([[MATCH], [MATCH]]);  // the banner stays: the postcondition fails
  const again = await captureViewHierarchy(client, [BANNER]);
  let failure = "";
  try {
    await runConditionalActions(client, [{ id: "stuck", description: "Close it", condition: (s) => s.visible(BANNER),
      action: async () => {}, postcondition: (s) => !s.visible(BANNER) }], again);
  } catch (e) {
    failure = e instanceof ConditionalActionFailedError ? `${e.conditionalActionId}: ${e.message}` : `other ${e}`;
  }
  return { handled: first.handled, closed, failure, found: snap.find(BANNER), all: snap.findAll(BANNER).length,
           calls: client.calls.map((c) => c.tool), selector: BANNER };
});

export const sdk_zod = trailblaze.tool<Empty>(async () => {
  const schema = z.object({ name: z.string(), qty: z.number().int().positive() });
  const ok = schema.safeParse({ name: "mug", qty: 2 });
  const bad = schema.safeParse({ name: "mug", qty: -1 });
  return { ok: ok.success, bad: bad.success };
});

export const sdk_testing = trailblaze.tool<Empty>(async () => {
  const client = createMockClient();
  client.stub("web_currentUrl", { textContent: "https://x.test/" });
  client.stub("broken", { textContent: "", errorMessage: "nope" });
  const url = await client.tools.web_currentUrl({});
  let error = "";
  try { await client.tools.broken({ a: 1 }); } catch (e) { error = (e as Error).message; }
  const ctx = createMockContext({ platform: "android", memory: { user: "ada", n: 3 } as any,
                                  target: undefined });
  ctx.memory.setJson("list", [1, 2]);
  return { url, error, calls: client.calls, device: ctx.device, user: ctx.memory.get("user"),
           n: ctx.memory.get("n") ?? null, list: ctx.memory.getJson("list"), keys: ctx.memory.keys(),
           text: ctx.memory.interpolate("hi {{user}}") };
});

export const sdk_fromMeta = trailblaze.tool<Empty>(async () => {
  const meta = { trailblaze: { sessionId: "s1", invocationId: "i1", baseUrl: "http://127.0.0.1:1",
    device: { platform: "web", widthPixels: 1280, heightPixels: 800, driverType: "playwright-native" },
    memory: { k: "v" }, target: { id: "shop", appIds: ["com.shop"], baseUrls: ["http://shop.test"] } } };
  const ctx = fromMeta(meta)!;
  return { session: ctx.sessionId, device: ctx.device, k: ctx.memory.get("k"), appId: ctx.target!.resolveAppId(),
           base: ctx.target!.resolveBaseUrl(), noEnvelope: fromMeta({}) === undefined,
           badDevice: fromMeta({ trailblaze: { sessionId: "s", invocationId: "i", device: { platform: "tv" } } })
             === undefined };
});

tool("sdk_imperative", { description: "An imperative tool." }, async (args, ctx, client) => {
  ctx!.memory.set("seen", String(args.word));
  return { content: [{ type: "text", text: `${args.word} on ${ctx!.device.platform}` }] };
});

void run();
"""

TOOLS = ["sdk_conditional", "sdk_zod", "sdk_testing", "sdk_fromMeta", "sdk_imperative"]


def serve(module: Path, calls: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    spec = ServerSpec(name="sdk", transport="stdio", source=ToolSource(plugin="t"), script=module,
                      module_tools=json.dumps([{"name": n} for n in TOOLS]))
    launch = launch_for(spec, device=DeviceInfo(platform="web", driver="playwright-native"), session_id="s",
                        base_url=None)
    meta = {"trailblaze": {"sessionId": "s", "invocationId": "i", "memory": {},
                           "device": {"platform": "web", "widthPixels": 1280, "heightPixels": 800,
                                      "driverType": "playwright-native"}}}
    lines = [json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                         "params": {"name": name, "arguments": args, "_meta": meta}})
             for i, (name, args) in enumerate(calls)]
    done = subprocess.run(launch.argv, input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=120,
                          check=False, env={**os.environ, **launch.env}, cwd=launch.cwd)
    answers = sorted((json.loads(line) for line in done.stdout.splitlines()), key=lambda a: a["id"])
    assert len(answers) == len(calls), done.stderr
    return [a["result"] for a in answers]


def test_every_export_of_the_sdk_works_in_a_served_module(ts_runtime: str, tmp_path: Path) -> None:
    module = tmp_path / "tools" / "sdk_tools.ts"
    module.parent.mkdir()
    module.write_text(MODULE)
    conditional, zod, testing, meta, imperative = serve(module, [(n, {"word": "hello"} if n == "sdk_imperative"
                                                                  else {}) for n in TOOLS])
    assert conditional["structuredContent"] == {
        "handled": ["close-banner"], "closed": ["banner"],
        "failure": 'stuck: postcondition not satisfied after action for conditional "stuck" (Close it)',
        "found": {"indexPath": [0, 2], "bounds": {"left": 1, "top": 2, "right": 3, "bottom": 4}}, "all": 1,
        "calls": ["findMatches"] * 4, "selector": {"web": {"ariaRole": "button", "ariaNameRegex": "Close"}}}
    assert zod["structuredContent"] == {"ok": True, "bad": False}
    assert testing["structuredContent"] == {
        "url": "https://x.test/", "error": 'trailblaze.client.callTool("broken") tool failed: nope',
        "calls": [{"tool": "web_currentUrl", "args": {}}, {"tool": "broken", "args": {"a": 1}}],
        "device": {"platform": "android", "widthPixels": 1080, "heightPixels": 2400, "driverType": "mock-driver"},
        "user": "ada", "n": None, "list": [1, 2], "keys": ["user", "list"], "text": "hi ada"}
    assert meta["structuredContent"] == {
        "session": "s1", "device": {"platform": "web", "widthPixels": 1280, "heightPixels": 800,
                                    "driverType": "playwright-native"},
        "k": "v", "appId": "com.shop", "base": "http://shop.test", "noEnvelope": True, "badDevice": True}
    assert imperative["content"] == [{"type": "text", "text": "hello on web"}]
    assert imperative["_meta"]["trailblaze"]["memoryDelta"] == {"seen": "hello"}
