"""Core plugin: ``trailblaze step`` / ``trailblaze verify`` (one-shot agent commands), and closing the
agent's provider client when a session ends.

A one-shot command is a one-step trail run on a fresh device: the same driver selection, session hooks,
dispatch, logs and agent as ``trailblaze run``. ``--save FILE`` appends the step, with the recording
the agent produced for this device, to a trail (created when missing), so a trail can be authored
step by step from the command line.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import hookimpl

if TYPE_CHECKING:
    import click

    from ..session import Session, SessionOutcome


@hookimpl
def trailblaze_session_finished(session: "Session", outcome: "SessionOutcome") -> None:
    from .loop import STATE_KEY

    state = session.resources.pop(STATE_KEY, None)
    if state is not None:
        state.close()


@hookimpl
def trailblaze_register_commands(cli: "click.Group") -> None:
    cli.add_command(_make_command("step"))
    cli.add_command(_make_command("verify"))


def _make_command(kind: str) -> "click.Command":
    import click

    from ..cli import CONTEXT_SETTINGS, handle_errors

    noun = "instruction" if kind == "step" else "assertion"
    helps = {
        "step": """Carry out one natural-language INSTRUCTION on a fresh device with the LLM agent.

        Exit 0 when the agent completes it, 1 when it cannot. With --save FILE the step and the
        recording the agent made are appended to a trail (created if missing).

        \b
        Examples:
          trailblaze step "Add the blue mug to the cart" --driver playwright-native --llm openai/gpt-4.1
          trailblaze step "Open the settings" --save trails/settings.trail.yaml
        """,
        "verify": """Check one natural-language ASSERTION on a fresh device with the LLM agent.

        Only verification tools are offered. Exit 0 when it holds, 1 when it does not. With --save FILE
        a `verify:` step with its recording is appended to a trail.

        \b
        Example:
          trailblaze verify "The cart shows 1 item" --driver playwright-native
        """,
    }

    @click.command(kind, context_settings=CONTEXT_SETTINGS, help=helps[kind])
    @click.argument(noun)
    @click.option("--driver", metavar="NAME", help="Driver key or upstream name (default: the workspace default, else host).")
    @click.option("-o", "--driver-option", "driver_options", multiple=True, metavar="KEY=VALUE",
                  help="Driver setting, e.g. -o base_url=http://127.0.0.1:8000 (repeatable).")
    @click.option("--headed", is_flag=True, help="Show the browser window.")
    @click.option("--target", metavar="ID", help="Target app (trailmap) whose tools the agent is offered.")
    @click.option("--llm", metavar="PROVIDER/MODEL", help="Model to use, e.g. anthropic/claude-sonnet-4-5.")
    @click.option("--max-llm-calls", type=int, help="Cap on model calls (default 50).")
    @click.option("--memory", multiple=True, metavar="KEY=VALUE", help="Seed a memory value (repeatable).")
    @click.option("--secret", multiple=True, metavar="KEY=VALUE", help="Like --memory, redacted everywhere.")
    @click.option("--save", "save", type=click.Path(path_type=Path, dir_okay=False),
                  help="Append the step and its recording to this trail file.")
    @click.option("--output-dir", type=click.Path(path_type=Path), help="Where logs go (default: ./logs).")
    @handle_errors
    def command(driver: str | None, driver_options: tuple[str, ...], headed: bool, target: str | None,
                llm: str | None, max_llm_calls: int | None, memory: tuple[str, ...], secret: tuple[str, ...],
                save: Path | None, output_dir: Path | None, **kwargs: Any) -> None:
        from ..cli import debug_enabled, parse_driver_options, parse_kv
        from ..runner import RunOptions

        text = str(kwargs[noun])
        options = RunOptions(driver=driver, driver_options=parse_driver_options(driver_options), headed=headed,
                             memory=parse_kv(memory, "--memory"), secrets=parse_kv(secret, "--secret"), llm=llm,
                             max_llm_calls=max_llm_calls, save_recording=False, report=False,
                             output_dir=output_dir, test_name=kind,
                             debug=debug_enabled())
        sys.exit(run_one_shot(kind, text, options, target=target, save=save))

    return command


def run_one_shot(kind: str, text: str, options: Any, *, target: str | None = None, save: Path | None = None,
                 host: Any = None) -> int:
    """Run one ``step``/``verify`` on a fresh device; returns the exit code. Used by the commands."""
    from ..errors import BadInputError
    from ..runner.progress import Progress
    from ..runner.results import RunResult
    from ..runner.run import Runner
    from ..trail.model import Trail, TrailConfig, TrailStep

    if not text.strip():
        raise BadInputError(f"trailblaze {kind} needs a non-empty {'instruction' if kind == 'step' else 'assertion'}")
    progress = Progress()
    runner = Runner(options, host=host, progress=progress)
    ws = runner.workspace_for(save.resolve().parent if save is not None else None)
    if ws.error is not None:
        raise ws.error
    step = TrailStep(kind="verify" if kind == "verify" else "step", text=text, index=0)
    trail = Trail(path=Path(f"<trailblaze {kind}>"), format="unified",
                  config=TrailConfig(target=target, title=f"trailblaze {kind}"), steps=[step])
    result = runner.run_loaded_trail(trail, ws)
    run = RunResult(trails=[result], output_dir=runner.output_dir)
    progress.run_finished(run)
    if result.passed and save is not None:
        from ..trail.saveback import append_step

        calls = result.steps[0].recording if result.steps else None
        index = append_step(save, text, "verify" if kind == "verify" else "step", classifier=result.classifier,
                            calls=calls or None, host=runner.host)
        what = f"with its {result.classifier} recording" if calls else "without a recording"
        progress.note(f"Saved as step {index + 1} of {save} ({what})")
    return int(result.exit_code)
