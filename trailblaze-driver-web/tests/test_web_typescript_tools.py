"""Typed TypeScript tools end to end (issue 25 item 2), in a workspace shaped like upstream's
``examples/playwright-native``: ``examples/typescript-tools`` (bare ``tools/<name>.ts`` files, one helper
module, a ``*.test.ts``, a ``*.d.ts`` and a commented-out reference file), copied to a temporary directory.

* ``trailblaze tools`` lists exactly the typed tools, with schemas derived from their ``Args`` types;
* a trail calling them — they call ``web_*`` tools and each other through ``ctx.tools`` — passes against
  the example web shop in real Chromium; an upstream descriptor sidecar (``tools/<name>.yaml`` with
  ``script:``) pointing at an author module is served the same way;
* ``trailblaze check`` errors on a ``target.tools`` name nothing provides, naming the file and line;
* a module importing a package that is not installed, or an export the SDK lacks, fails only the calls
  of its tools, naming it;
* no process tries the network: the package-registry and proxy variables point at a loopback listener
  that must see no connection, and bun runs with ``--no-install``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from trailblaze.testing.offline import RegistrySentinel

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "typescript-tools"
TYPED = ["shopTs_web_addToCart", "shopTs_web_openProduct", "shopTs_web_signIn"]


@pytest.fixture
def sentinel() -> Iterator[RegistrySentinel]:
    with RegistrySentinel() as s:
        yield s
    assert s.connections == 0, "a process tried the network (package registry or proxy)"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    from trailblaze_yaml_tools.ts_tools import package_versions

    if package_versions() is None:
        pytest.fail("typescript and ts-json-schema-generator are not on NODE_PATH: run "
                    "scripts/bootstrap.sh and source .tools/env.sh")
    root = tmp_path / "ws"
    shutil.copytree(EXAMPLE, root)
    return root


def trailblaze(root: Path, sentinel: RegistrySentinel, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "trailblaze.cli", *args], cwd=root, capture_output=True,
                          text=True, timeout=300, check=False, env={**os.environ, **sentinel.env()})


def tools_dir(root: Path) -> Path:
    return root / "trails" / "config" / "trailmaps" / "shopTs" / "tools"


def test_tools_lists_the_typed_tools_with_schemas_from_their_args_types(workspace: Path,
                                                                        sentinel: RegistrySentinel) -> None:
    done = trailblaze(workspace, sentinel, "tools", "--json", "--search", "shopTs")
    assert done.returncode == 0, done.stderr
    listed = {t["name"]: t for t in json.loads(done.stdout)}
    assert sorted(listed) == TYPED  # not the helper, the .test.ts, the .d.ts or the commented reference
    add = listed["shopTs_web_addToCart"]
    assert add["description"].startswith("Add a quantity of a product to the cart")
    assert add["inputSchema"] == {
        "type": "object", "additionalProperties": False, "required": ["name"],
        "properties": {"name": {"type": "string", "description": "Product name as listed, e.g. Trail Mug."},
                       "quantity": {"type": "number",
                                    "description": "How many to add (1-99); 1 when left out."}}}
    assert add["platforms"] == ["web"] and add["drivers"] == ["playwright-native"]
    assert add["sourceInfo"]["file"].endswith("tools/shopTs_web_addToCart.ts") and add["trailmap"] == "shopTs"
    assert listed["shopTs_web_signIn"]["inputSchema"]["required"] == ["email", "password"]


def test_a_trail_calling_typed_tools_passes_in_chromium(workspace: Path, sentinel: RegistrySentinel, shop_server: str,
                                                         chromium: str) -> None:
    tools = tools_dir(workspace)
    # An upstream descriptor sidecar whose script is an author module (a plain exported function).
    (tools / "shopTs_rememberShopper.yaml").write_text(
        "script: ./shopper.ts\nname: shopTs_rememberShopper\ndescription: Remember who shops.\n"
        "inputSchema:\n  name: {type: string, description: Who}\n")
    (tools / "shopper.ts").write_text(
        "export async function shopTs_rememberShopper(args: { name: string }, ctx: any) {\n"
        "  ctx.memory.set('shopper', args.name);\n  return `remembered ${args.name}`;\n}\n")
    trail = workspace / "trails" / "add-to-cart.trail.yaml"
    trail.write_text(trail.read_text() + "  - step: Remember the shopper\n    recording:\n      web:\n"
                     "        - shopTs_rememberShopper: {name: Ada}\n"
                     "        - assertEquals: {actual: '{{shopper}}', expected: Ada}\n")
    done = trailblaze(workspace, sentinel, "run", str(trail), "--memory", f"shopUrl={shop_server}",
                      "--output-dir", str(workspace / "out"), "--no-report")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "✓ step 4: Remember the shopper" in done.stdout
    # The tool servers' loop is stopped cleanly at exit: no "coroutine … was never awaited" (issue 22, LOW).
    assert "never awaited" not in done.stderr, done.stderr


def test_check_errors_on_a_target_tool_nothing_provides(workspace: Path, sentinel: RegistrySentinel) -> None:
    manifest = workspace / "trails" / "config" / "trailmaps" / "shopTs" / "trailmap.yaml"
    extra = "    - shopTs_web_addToCart\n    - shopTs_web_checkout\n"
    manifest.write_text(manifest.read_text().replace("    - shopTs_web_addToCart\n", extra))
    done = trailblaze(workspace, sentinel, "check", "trails")
    assert done.returncode == 3, done.stdout + done.stderr
    out = done.stdout + done.stderr
    assert "trailmap.yaml:10" in out and "shopTs_web_checkout" in out


BAD_EXPORT_TOOL = """import { trailblaze, notAnExport } from "@trailblaze/scripting";

export interface BadArgs {
  /** Text. */
  text: string;
}

/** A tool whose module cannot load: it imports an export the SDK does not have. */
export const shopTs_web_bad = trailblaze.tool<BadArgs>(async (args) => notAnExport(args.text));
"""


def test_a_typed_tool_that_cannot_load_fails_only_the_trails_calling_it(workspace: Path, sentinel: RegistrySentinel,
                                                                        shop_server: str, chromium: str) -> None:
    """Issue 37 item 1: upstream's wikipedia workspace has tools importing SDK exports; one module that cannot
    load must not stop the trails that never call it."""
    (tools_dir(workspace) / "shopTs_web_bad.ts").write_text(BAD_EXPORT_TOOL)
    listed = trailblaze(workspace, sentinel, "tools", "--search", "shopTs")
    assert listed.returncode == 0, listed.stdout + listed.stderr
    assert "shopTs_web_bad" in listed.stdout
    good = workspace / "trails" / "add-to-cart.trail.yaml"
    bad = workspace / "trails" / "bad.trail.yaml"
    bad.write_text(good.read_text().split("trail:\n")[0] + "trail:\n  - step: Call the broken tool\n"
                   "    recording:\n      web:\n        - shopTs_web_bad: {text: hi}\n")
    checked = trailblaze(workspace, sentinel, "check", str(good))  # servers started: the module fails to load
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "warning: [ToolLoad] tool 'shopTs_web_bad' is unavailable" in checked.stdout + checked.stderr
    checked = trailblaze(workspace, sentinel, "check", str(bad))
    assert checked.returncode == 3, checked.stdout + checked.stderr
    assert "shopTs_web_bad.ts:9: error: [ToolLoad] tool 'shopTs_web_bad' is unavailable" in \
        checked.stdout + checked.stderr
    passed = trailblaze(workspace, sentinel, "run", str(good), "--memory", f"shopUrl={shop_server}",
                        "--output-dir", str(workspace / "out-good"), "--no-report")
    assert passed.returncode == 0, passed.stdout + passed.stderr
    failed = trailblaze(workspace, sentinel, "run", str(bad), "--memory", f"shopUrl={shop_server}",
                        "--output-dir", str(workspace / "out-bad"), "--no-report")
    assert failed.returncode == 1, failed.stdout + failed.stderr
    out = failed.stdout + failed.stderr
    assert "tool 'shopTs_web_bad' is unavailable" in out
    assert "shopTs_web_bad.ts failed to load: it imports 'notAnExport' from '@trailblaze/scripting', " \
           "which has no such export" in out


CONDITIONAL_TOOL = """import {
  captureViewHierarchy, runConditionalActions, selectors, trailblaze, type ConditionalAction,
} from "@trailblaze/scripting";

export interface SignInIfAskedArgs {
  /** Account email. */
  email: string;
}

/** Sign in when the sign-in form shows, as upstream's wikipedia banner tool dismisses its banner. */
export const shopTs_web_signInIfAsked = trailblaze.tool<SignInIfAskedArgs>(
  { supportedPlatforms: ["web"] },
  async (args, ctx) => {
    await ctx.tools.web_navigate({ url: "/" });
    const SIGN_IN = selectors.web({ ariaRole: "button", ariaNameRegex: "Sign in" });
    const matches = await ctx.tools.findMatches({ selector: SIGN_IN });
    const box = matches[0].bounds;
    ctx.memory.set("signInButtons", String(matches.length));
    ctx.memory.set("signInHasBox", String(box.right > box.left && box.bottom > box.top));
    const catalog: ConditionalAction[] = [{
      id: "sign-in", description: "Sign in when asked",
      condition: (snap) => snap.visible(SIGN_IN),
      action: async () => {
        await ctx.tools.web_type({ ref: 'textbox "Email"', text: args.email });
        await ctx.tools.web_type({ ref: 'textbox "Password"', text: "secret123" });
        await ctx.tools.web_click({ ref: 'button "Sign in"' });
        await ctx.tools.web_verifyElementVisible({ ref: 'link "View Compass"' });
      },
      postcondition: (snap) => !snap.visible(SIGN_IN),
    }];
    const result = await runConditionalActions(ctx, catalog, await captureViewHierarchy(ctx, [SIGN_IN]));
    return result.handled.join(",") || "nothing to do";
  },
);
"""


def test_a_typed_tool_runs_conditional_actions_on_find_matches_in_chromium(
        workspace: Path, sentinel: RegistrySentinel, shop_server: str, chromium: str) -> None:
    """Issue 37 item 1: ``ctx.tools.findMatches`` on the web driver answers upstream's MatchDescriptor
    array, which ``captureViewHierarchy`` and ``runConditionalActions`` build on."""
    (tools_dir(workspace) / "shopTs_web_signInIfAsked.ts").write_text(CONDITIONAL_TOOL)
    trail = workspace / "trails" / "conditional.trail.yaml"
    head = (workspace / "trails" / "add-to-cart.trail.yaml").read_text().split("trail:\n")[0]
    trail.write_text(head + "trail:\n  - step: Sign in when asked\n    recording:\n      web:\n"
                     "        - shopTs_web_signInIfAsked: {email: ts@example.com}\n"
                     "        - assertEquals: {actual: '{{signInButtons}}', expected: '1'}\n"
                     "        - assertEquals: {actual: '{{signInHasBox}}', expected: 'true'}\n"
                     "        - web_verifyElementVisible: {ref: 'link \"View Compass\"'}\n")
    done = trailblaze(workspace, sentinel, "run", str(trail), "--memory", f"shopUrl={shop_server}",
                      "--output-dir", str(workspace / "out"), "--no-report")
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_missing_import_names_the_module_and_nothing_is_installed(workspace: Path,
                                                                    sentinel: RegistrySentinel) -> None:
    from trailblaze.driver import DeviceInfo
    from trailblaze.tools.base import ToolSource
    from trailblaze_mcp_subprocess.config import ServerSpec
    from trailblaze_mcp_subprocess.spawn import launch_for

    (tools_dir(workspace) / "shopTs_web_pad.ts").write_text(
        'import { trailblaze } from "@trailblaze/scripting";\nimport leftPad from "left-pad";\n\n'
        "export interface PadArgs {\n  /** Text. */\n  text: string;\n}\n\n"
        "export const shopTs_web_pad = trailblaze.tool<PadArgs>(async (args) => leftPad(args.text, 9));\n")
    done = trailblaze(workspace, sentinel, "tools", "--search", "shopTs")
    assert done.returncode == 0, done.stdout + done.stderr  # the module fails its own calls, not the listing
    module = ServerSpec(name="pad", transport="stdio", source=ToolSource(plugin="t"),
                        module_tools=json.dumps([{"name": "shopTs_web_pad"}]),
                        script=tools_dir(workspace) / "shopTs_web_pad.ts")
    launch = launch_for(module, device=DeviceInfo(platform="web", driver="playwright-native"), session_id="s",
                        base_url=None)
    argv = launch.argv
    assert "--no-install" in argv if "bun" in Path(argv[0]).name else "tsx" in " ".join(argv)
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "shopTs_web_pad", "arguments": {}}}
    served = subprocess.run(argv, input=json.dumps(call) + "\n", capture_output=True, text=True, timeout=60,
                            check=False, env={**os.environ, **launch.env, **sentinel.env()}, cwd=launch.cwd)
    answer = json.loads(served.stdout.splitlines()[0])["result"]
    assert answer["isError"] is True
    assert "shopTs_web_pad.ts failed to load: it imports 'left-pad', which is not installed" in \
        answer["content"][0]["text"]


DOC = REPO / "docs" / "typescript-tools.md"


def test_the_documented_commands_work(workspace: Path, sentinel: RegistrySentinel, shop_server: str,
                                      chromium: str) -> None:
    import re

    block = re.search(r"## Try it\n.*?```bash\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert block is not None
    lines = block.group(1).splitlines()
    assert lines[0] == "cd examples/typescript-tools" and len(lines) == 4
    outputs = []
    for line in lines[1:]:
        argv = line.replace("http://127.0.0.1:8000", shop_server).split()
        assert argv[0] == "trailblaze"
        done = trailblaze(workspace, sentinel, *argv[1:])
        assert done.returncode == 0, line + "\n" + done.stdout + done.stderr
        outputs.append(done.stdout)
    assert all(name in outputs[0] for name in TYPED)
    assert "PASSED" in outputs[2]
