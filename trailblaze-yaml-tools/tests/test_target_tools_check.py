"""``check`` on a target's ``tools:`` (and a platform's) naming a tool no source registers (issue 25): an
error naming the file, line and the closest known names, instead of an unknown tool mid-run."""

from __future__ import annotations

from pathlib import Path

from trailblaze.testing import run_cli


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in {"trails/config/trailblaze.yaml": "{}\n", **files}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def test_check_errors_on_a_target_tool_name_nothing_registers(tmp_path: Path) -> None:
    write(tmp_path, {
        "trails/config/trailmaps/shop/trailmap.yaml":
            "id: shop\ntarget:\n  display_name: Shop\n  tools:\n    - shop_typoTool\n  platforms:\n"
            "    web:\n      tools: [web_clik]\n",
        "trails/plain.trail.yaml": "trail:\n  - step: w\n    recording:\n      host:\n"
                                   "        - wait: {timeToWaitInSeconds: 0}\n",
    })
    done = run_cli(["check", str(tmp_path / "trails" / "plain.trail.yaml")], cwd=tmp_path)
    assert done.exit_code == 3
    assert ("trailmap.yaml:5:7: error: [TargetTools] target 'shop' lists tool 'shop_typoTool', which no source "
            "registers") in done.output
    assert "trailmap.yaml:8:15: error: [TargetTools] target 'shop' lists tool 'web_clik'" in done.output
    assert "did you mean 'web_click'" in done.output
