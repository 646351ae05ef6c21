"""``DialogsAndDownloads``: a recording's dialogs and downloads, written as checks of the action that
caused them.

A dialog is answered by the recording's ``dialogs`` setting (Playwright answers every dialog; the person
sees its message in the terminal): ``web_handleDialog`` with that answer goes before the action that
opened it, so replay answers it the same whatever the trail's setting, and ``web_verifyDialog`` after it.
A download becomes ``web_verifyDownload`` (its file name) after the action that started it. One that came
by itself (a timer, a page that downloads on load) is a check step of its own.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from trailblaze import ToolCall, escape_literal

if TYPE_CHECKING:
    from playwright.sync_api import Page

    from .recorder_steps import StepLog


class DialogsAndDownloads:
    def __init__(self, log: StepLog, answer: str) -> None:
        self.log = log
        self.answer = answer
        """How the recording's browser answers dialogs (``accept`` or ``dismiss``)."""

    def dialog(self, kind: str, message: str, page: Page | None) -> None:
        """A second dialog of the same action is answered by the setting in replay as here; its message
        replaces the first's in the check (which reads the last dialog)."""
        log, answer = self.log, self.answer
        said = f"{kind} {json.dumps(message, ensure_ascii=False)}"
        verify = ToolCall("web_verifyDialog", {"message": message})
        cause = log.cause(page)
        answered = f"the {said} was answered {answer} (the dialogs setting: -o dialogs=accept|dismiss)"
        if cause is None:  # not after an action: it came by itself (a timer, a page load)
            log.acting = page
            log.add("verify", verify, f"Check that a {kind} said {json.dumps(message, ensure_ascii=False)}",
                    new=True)
            return
        step, at = cause
        verify = ToolCall(verify.name, {"message": escape_literal(message)})  # literal text, as add writes it
        following = step.calls[at + 1] if at + 1 < len(step.calls) else None
        if following is not None and following.name == "web_verifyDialog":
            step.calls[at + 1] = verify
            log.say(f"web_verifyDialog: {answered}")
            return
        log.say(f"web_handleDialog, web_verifyDialog: {answered}")
        step.calls.insert(at, ToolCall("web_handleDialog", {"action": answer}))
        step.calls.insert(at + 2, verify)
        step.said.append(f"{answer} the {said}")

    def download(self, name: str, page: Page | None) -> None:
        """``web_verifyDownload`` checks the last download of its step: after the dialog checks of the
        action that started it."""
        log = self.log
        check = ToolCall("web_verifyDownload", {"fileName": name})
        said = f"check that {json.dumps(name, ensure_ascii=False)} downloaded"
        cause = log.cause(page)
        if cause is None:  # not after an action (a page that downloads on load): a check of its own
            log.acting = page
            log.add("verify", check, said[:1].upper() + said[1:], new=True)
            return
        log.say(f"web_verifyDownload: {said}")
        step, at = cause
        check = ToolCall(check.name, {"fileName": escape_literal(name)})  # literal text, as add writes it
        at += 1
        while at < len(step.calls) and step.calls[at].name in ("web_verifyDialog", "web_verifyDownload"):
            at += 1
        step.calls.insert(at, check)
        step.said.append(said)
