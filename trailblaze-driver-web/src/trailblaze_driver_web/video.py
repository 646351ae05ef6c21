"""Video of a web attempt, from Chromium's screencast and the system's ``ffmpeg``.

Playwright's own ``record_video_dir`` needs the ffmpeg build ``playwright install`` downloads next to its
browsers, and takes no path to another one; where only the system Chromium is installed that build is not
there. So the driver records the screencast itself — the DevTools ``Page.startScreencast`` stream, a JPEG
per repaint with its timestamp, acknowledged frame by frame so Chromium never queues more than one —
into a scratch folder of the session's log directory, and at the end of the trail either encodes the
frames with ``ffmpeg`` (Debian's package; ``ffmpeg_path`` or PATH) into ``video.webm`` (VP8, the frames
shown for as long as they were on screen) or deletes them (``retain-on-failure`` on a pass).

Pixels cannot be redacted: a field that shows a secret in clear text shows it in the video, as in the
trace's screencast (docs/web.md, Artifacts).
"""

from __future__ import annotations

import base64
import shutil
import subprocess
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trailblaze import DriverError

if TYPE_CHECKING:
    from trailblaze import Session

VIDEO_FILE = "video.webm"
MAX_FRAMES = 20_000


def find_ffmpeg(configured: str | None) -> str:
    found = configured or shutil.which("ffmpeg")
    if not found or not Path(found).exists():
        raise DriverError("video recording needs ffmpeg, which was not found" +
                          (f" at ffmpeg_path={configured}" if configured else " on PATH"),
                          hint="install it (Debian: apt-get install ffmpeg), set drivers.playwright-native."
                               "ffmpeg_path, or set video: off")
    return found


class ScreencastRecorder:
    def __init__(self, context: Any, frames_dir: Path, ffmpeg: str) -> None:
        self.context = context
        self.frames_dir = frames_dir
        self.ffmpeg = ffmpeg
        self.frames: list[tuple[float, Path]] = []
        self._cdp: Any = None
        self._page: Any = None
        self._size: tuple[int, int] | None = None
        """The first followed page's viewport: every frame is scaled to it, since a loaded Chromium may send
        some screencast frames smaller (the video once came out 960 wide for a 1280 viewport)."""

    def follow(self, page: Any) -> None:
        """Record ``page`` from now on (a popup that becomes the current page takes over the video)."""
        if page is self._page:
            return
        self._detach()
        self.frames_dir.mkdir(parents=True, exist_ok=True)
        try:
            cdp = self.context.new_cdp_session(page)
            cdp.on("Page.screencastFrame", self._on_frame)
            cdp.send("Page.startScreencast", {"format": "jpeg", "quality": 70, "everyNthFrame": 1})
        except Exception:  # noqa: BLE001 - a page that closed meanwhile, a remote browser without CDP
            return
        self._cdp, self._page = cdp, page
        viewport = getattr(page, "viewport_size", None)
        if self._size is None and isinstance(viewport, dict) and viewport.get("width") and viewport.get("height"):
            self._size = (int(viewport["width"]) // 2 * 2, int(viewport["height"]) // 2 * 2)

    def _on_frame(self, params: dict[str, Any]) -> None:
        cdp = self._cdp
        if cdp is None:
            return
        if len(self.frames) < MAX_FRAMES:
            path = self.frames_dir / f"f{len(self.frames):06d}.jpg"
            path.write_bytes(base64.b64decode(params["data"]))
            stamp = float((params.get("metadata") or {}).get("timestamp") or time.time())
            self.frames.append((stamp, path))
        try:
            cdp.send("Page.screencastFrameAck", {"sessionId": params["sessionId"]})
        except Exception:  # noqa: BLE001 - the page is going away
            pass

    def _detach(self) -> None:
        cdp, self._cdp, self._page = self._cdp, None, None
        if cdp is None:
            return
        for call in (lambda: cdp.send("Page.stopScreencast"), cdp.detach):
            try:
                call()
            except Exception:  # noqa: BLE001
                pass

    def finish(self, out: Path | None) -> Path | None:
        """Stop; encode to ``out`` (None: discard). The scratch frames are removed either way."""
        end = time.time()
        self._detach()
        try:
            if out is None or not self.frames:
                return None
            return self._encode(out, end)
        finally:
            shutil.rmtree(self.frames_dir, ignore_errors=True)

    def trail_finished(self, session: Session, ok: bool, keep: str) -> None:
        """Stop; encode into the log directory when ``keep`` (the ``video`` setting) asks for the video
        after this outcome, and log it. An ffmpeg that fails is logged: the run's verdict stands."""
        kept = keep == "on" or (keep == "retain-on-failure" and not ok)
        try:
            path = self.finish(session.log_dir / VIDEO_FILE if kept else None)
        except Exception as exc:  # noqa: BLE001
            session.log.write("WebArtifactLog", {"error": f"the video could not be encoded: {exc}"})
            return
        if path is not None:
            session.log.write("WebEvidenceLog", {"evidence": {"video": VIDEO_FILE}})

    def _encode(self, out: Path, end: float) -> Path:
        lines = ["ffconcat version 1.0"]
        for i, (stamp, path) in enumerate(self.frames):
            following = self.frames[i + 1][0] if i + 1 < len(self.frames) else max(end, stamp + 0.04)
            lines += [f"file '{path.name}'", f"duration {max(0.01, following - stamp):.3f}"]
        # the concat demuxer ignores the last entry's duration unless its file is listed once more
        lines.append(f"file '{self.frames[-1][1].name}'")
        listing = self.frames_dir / "frames.ffconcat"
        listing.write_text("\n".join(lines) + "\n", encoding="utf-8")
        tmp = out.with_name(f".{out.name}.tmp.webm")
        scale = f"scale={self._size[0]}:{self._size[1]}" if self._size else "scale=trunc(iw/2)*2:trunc(ih/2)*2"
        done = subprocess.run([self.ffmpeg, "-y", "-loglevel", "error", "-f", "concat", "-safe", "0", "-i",
                               str(listing), "-vf", f"{scale},format=yuv420p",
                               "-c:v", "libvpx", "-b:v", "1M", "-deadline", "realtime", "-cpu-used", "8",
                               "-an", str(tmp)], capture_output=True, text=True, timeout=300, check=False)
        if done.returncode != 0:
            tmp.unlink(missing_ok=True)
            raise RuntimeError(f"ffmpeg exited with {done.returncode}: {done.stderr.strip()[-400:]}")
        tmp.replace(out)
        return out
