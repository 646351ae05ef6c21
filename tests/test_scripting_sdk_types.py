"""The type declarations of our ``@trailblaze/scripting`` (``index.d.ts``, ``testing.d.ts``): ``tsc --noEmit``
type-checks workspace tools against them (issue 37).

* upstream's own wikipedia tools (``tests/fixtures/upstream-wikipedia``, 11 typed tools and their helper
  module, written against upstream's SDK) type-check unchanged;
* a tool using the SDK's helpers and its ``testing`` entry type-checks; one calling an export the SDK does
  not have, or passing a wrong selector key, fails naming the file, the line and the name;
* the selector declarations hold exactly the fields of the Python selector model the drivers resolve.

Each folder's ``tsconfig.json`` is the one docs/typescript-tools.md gives, pointed at the directory its
documented command prints."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from trailblaze.selectors import (AndroidAccessibilityMatch, AndroidMaestroMatch, ComposeMatch, IosAxeMatch,
                                  IosMaestroMatch, NodeSelector, WebMatch)
from trailblaze_mcp_subprocess.spawn import SCRIPTING_MODULES

pytestmark = pytest.mark.node

DOC = Path(__file__).resolve().parents[1] / "docs" / "typescript-tools.md"
SDK = SCRIPTING_MODULES / "@trailblaze" / "scripting"
WIKIPEDIA_TOOLS = (Path(__file__).resolve().parent / "fixtures" / "upstream-wikipedia" / "examples" / "wikipedia"
                   / "trails" / "config" / "trailmaps" / "wikipedia" / "tools")

GOOD_TOOL = """import { captureViewHierarchy, runConditionalActions, selectors, trailblaze, type ConditionalAction,
  type MatchDescriptor } from "@trailblaze/scripting";
import { createMockContext, createQueuedFindMatchesClient } from "@trailblaze/scripting/testing";

export interface CloseArgs {
  /** Label of the close button. */
  label?: string;
}

/** Close a banner when one shows. */
export const acme_web_closeBanner = trailblaze.tool<CloseArgs, string[]>(
  { supportedPlatforms: ["web"], requiresContext: true },
  async (args, ctx) => {
    const CLOSE = selectors.web({ ariaRole: "button", ariaNameRegex: args.label ?? "Close" });
    const matches: MatchDescriptor[] = await ctx.tools.findMatches({ selector: CLOSE, timeoutMs: 500 });
    const wide = matches.some((m) => m.bounds != null && m.bounds.right - m.bounds.left > 0);
    ctx.memory.set("closeButtons", String(matches.length));
    ctx.memory.setJson("wide", wide);
    const catalog: ConditionalAction[] = [{
      id: "close", description: "Close the banner", condition: (s) => s.visible(CLOSE),
      action: async () => { await ctx.tools.web_click({ ref: "css=.close" }); },
      postcondition: (s) => !s.visible(CLOSE),
    }];
    const result = await runConditionalActions(ctx, catalog, await captureViewHierarchy(ctx, [CLOSE]));
    return result.handled;
  },
);

export async function selfTest(): Promise<number> {
  const client = createQueuedFindMatchesClient();
  client.queueFindMatches([[{ indexPath: [0], bounds: { left: 0, top: 0, right: 1, bottom: 1 } }]]);
  const ctx = createMockContext({ platform: "web", memory: { user: "ada" } });
  const snap = await captureViewHierarchy(client, [selectors.web({ cssSelector: ".close" })]);
  return snap.findAll(selectors.web({ cssSelector: ".close" })).length + ctx.device.widthPixels;
}
"""


def tsc() -> str:
    for directory in [*os.environ.get("NODE_PATH", "").split(os.pathsep)]:
        candidate = Path(directory) / ".bin" / "tsc"
        if directory and candidate.is_file():
            return str(candidate)
    found = shutil.which("tsc")
    if found is None:
        pytest.fail("tsc (TypeScript) is not installed: run scripts/bootstrap.sh and source .tools/env.sh")
    return found


def documented_tsconfig() -> str:
    """The ``tsconfig.json`` docs/typescript-tools.md gives, with the directory its command prints."""
    doc = DOC.read_text(encoding="utf-8")
    section = doc[doc.index("### Types in your editor"):]
    command = re.search(r"```bash\n(python -c .*?)\n```", section, re.S)
    config = re.search(r"```json\n(.*?)```", section, re.S)
    assert command is not None and config is not None
    argv = shlex.split(command.group(1))
    printed = subprocess.run([sys.executable, *argv[1:]], capture_output=True, text=True, timeout=60, check=True)
    directory = Path(printed.stdout.strip())
    assert directory == SDK and (directory / "index.d.ts").is_file()
    return config.group(1).replace("<that directory>", str(directory))


def type_check(folder: Path) -> subprocess.CompletedProcess[str]:
    (folder / "tsconfig.json").write_text(documented_tsconfig())
    return subprocess.run([tsc(), "--noEmit", "-p", str(folder)], capture_output=True, text=True, timeout=300,
                          check=False)


def test_upstreams_wikipedia_tools_type_check_against_our_declarations(tmp_path: Path) -> None:
    sources = sorted(WIKIPEDIA_TOOLS.glob("*.ts"))
    assert len(sources) == 12  # 11 typed tools and wikipedia_shared.ts
    for source in sources:
        shutil.copy(source, tmp_path / source.name)
    done = type_check(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_tool_using_the_sdk_type_checks_and_an_unknown_export_or_selector_key_does_not(tmp_path: Path) -> None:
    (tmp_path / "acme_web_closeBanner.ts").write_text(GOOD_TOOL)
    done = type_check(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr

    bad_export = GOOD_TOOL.replace("selectors, trailblaze,", "selectors, trailblaze, notAnExport,", 1)
    (tmp_path / "acme_web_closeBanner.ts").write_text(bad_export.replace(
        "const wide =", "notAnExport(matches);\n    const wide =", 1))
    done = type_check(tmp_path)
    assert done.returncode != 0
    assert re.search(r"acme_web_closeBanner\.ts\(1,\d+\): error TS(?:2305|2614): Module '\"@trailblaze/scripting\"' has "
                     r"no exported member 'notAnExport'", done.stdout), done.stdout

    (tmp_path / "acme_web_closeBanner.ts").write_text(GOOD_TOOL.replace("cssSelector: \".close\" })]",
                                                                        "cssSelectr: \".close\" })]", 1))
    done = type_check(tmp_path)
    assert done.returncode != 0
    assert "error TS2561" in done.stdout and "'cssSelectr'" in done.stdout, done.stdout


def _declared_fields(interface: str) -> set[str]:
    text = (SDK / "index.d.ts").read_text()
    body = re.search(rf"export interface {interface} \{{(.*?)\n\}}", text, re.S)
    assert body is not None, interface
    return set(re.findall(r"^\s+(\w+)\?:", body.group(1), re.M))


@pytest.mark.parametrize(("interface", "model"), [
    ("TrailblazeNodeSelector", NodeSelector), ("DriverNodeMatchWeb", WebMatch),
    ("DriverNodeMatchAndroidAccessibility", AndroidAccessibilityMatch),
    ("DriverNodeMatchAndroidMaestro", AndroidMaestroMatch), ("DriverNodeMatchIosMaestro", IosMaestroMatch),
    ("DriverNodeMatchIosAxe", IosAxeMatch), ("DriverNodeMatchCompose", ComposeMatch),
])
def test_the_selector_declarations_are_the_selector_model(interface: str, model: type) -> None:
    assert _declared_fields(interface) == set(model.model_fields)
