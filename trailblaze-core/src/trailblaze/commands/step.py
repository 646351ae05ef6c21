"""``trailblaze step``: one natural-language instruction on a fresh device, done by the agent.

A one-shot command is a one-step trail run on a fresh device: the same driver selection, session hooks,
dispatch, logs and agent as ``trailblaze run``. ``--save FILE`` appends the step, with the recording
the agent produced for this device, to a trail (created when missing), so a trail can be authored
step by step from the command line. ``trailblaze verify`` (``verify.py``) is the same command for an
assertion; both are built here by ``one_shot_command``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import click

from .session import SESSION_ENV
from .session_options import session_options, session_values
from .shared import CONTEXT_SETTINGS, debug_flag, handle_errors

if TYPE_CHECKING:
    from ..plugins import PluginHost
    from ..runner.options import RunOptions

OneShot = Literal["step", "verify"]


def one_shot_command(kind: OneShot, help_text: str) -> click.Command:
    """The click command for ``step`` or ``verify`` (they differ in the argument's name and the help)."""
    noun = "instruction" if kind == "step" else "assertion"

    @click.command(kind, context_settings=CONTEXT_SETTINGS, help=help_text)
    @click.argument(noun)
    @session_options(kind)
    @click.option("--url", metavar="URL", help="Open this page or deep link first (web: relative to the configured "
                  "base_url); without --driver, a web URL starts the browser whatever else is installed.")
    @click.option("--save", "save", type=click.Path(path_type=Path, dir_okay=False),
                  help="Append the step and its recording to this trail file.")
    @click.option("--session", "session_name", metavar="NAME", envvar=SESSION_ENV,
                  help=f"Act on the live session NAME (trailblaze session start) instead of a fresh device; the "
                       f"step is recorded for `session save` (default ${SESSION_ENV}).")
    @click.option("--tools", "tools_text", metavar="YAML", help="With --session: the step's tool calls as a YAML "
                  "list, e.g. '[{web_verifyTextVisible: {text: Welcome}}]' (no model needed).")
    @handle_errors
    def command(url: str | None, save: Path | None, session_name: str | None, tools_text: str | None,
                **params: Any) -> None:
        from ..errors import BadInputError
        from ..runner import RunOptions

        text = str(params.pop(noun))
        if session_name:
            from .session import session_step

            given = sorted(name for name, value in {**params, "save": save, "url": url}.items() if value)
            if given:
                raise BadInputError(f"{', '.join('--' + g.replace('_', '-') for g in given)} cannot be used with "
                                    "--session (they are the session's: set them at `trailblaze session start`)",
                                    hint="save with: trailblaze session save --name NAME PATH")
            session_step(kind, text, tools_text, session_name)
            return
        if tools_text:
            raise BadInputError("--tools needs --session NAME (a live session to run the calls on)")
        values = session_values(kind, params)
        target = values.pop("target")
        options = RunOptions(**values, save_recording=False, report=False, test_name=kind, debug=debug_flag())
        sys.exit(run_one_shot(kind, text, options, target=target, save=save, url=url))

    return command


command = one_shot_command("step", """Carry out one natural-language INSTRUCTION on a fresh device with the LLM agent.

    Exit 0 when the agent completes it, 1 when it cannot. With --save FILE the step and the
    recording the agent made are appended to a trail (created if missing).

    \b
    Examples:
      trailblaze step "Add the blue mug to the cart" --driver playwright-native --llm openai/gpt-4.1
      trailblaze step "Open the settings" --save trails/settings.trail.yaml
      trailblaze step "Add the blue mug to the cart" --url /shop
    """)


def run_one_shot(kind: OneShot, text: str, options: RunOptions, *, target: str | None = None,
                 save: Path | None = None, host: PluginHost | None = None, url: str | None = None) -> int:
    """Run one ``step``/``verify`` on a fresh device (with ``url`` opened first); returns the exit code."""
    import dataclasses

    from ..errors import BadInputError
    from ..results.model import RunResult
    from ..runner.progress import Progress
    from ..runner.run import Runner
    from ..trail.model import Trail, TrailConfig, TrailStep, number_steps

    if not text.strip():
        raise BadInputError(f"trailblaze {kind} needs a non-empty {'instruction' if kind == 'step' else 'assertion'}")
    progress = Progress()
    runner = Runner(dataclasses.replace(options, start_url=url) if url else options, host=host, progress=progress)
    ws = runner.workspace_for(save.resolve().parent if save is not None else None)
    if ws.error is not None:
        raise ws.error
    config = TrailConfig(target=target, title=f"trailblaze {kind}")
    if url and not options.driver and not ws.config.defaults.driver:
        from ..listings.screens import choose_driver

        config.driver = choose_driver(runner.factory.drivers, url).key  # a URL names the driver that takes it
    trail = Trail(path=Path(f"<trailblaze {kind}>"), format="unified", config=config,
                  steps=number_steps([TrailStep(kind=kind, text=text)]))
    result = runner.run_loaded_trail(trail, ws)
    run = RunResult(runner.redactor, trails=[result], output_dir=runner.output_dir)
    progress.run_finished(run)
    if result.passed and save is not None:
        from ..trail.saveback import append_step

        calls = result.steps[0].recording if result.steps else None
        saved = append_step(save, text, kind, classifier=result.classifier, calls=calls or None, codec=ws.codec)
        what = f"with its {result.classifier} recording" if calls else "without a recording"
        progress.note(f"Saved as step {saved.number} of {save} ({what})")
    return int(result.exit_code)
