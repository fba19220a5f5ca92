#!/usr/bin/env python3
"""Drives `stroll replay --realtime --speed 120` on a pseudo-terminal, as a
person would watch it, and reads the screens it draws in place.

Every screen shows the ranked lists, each under a header `HH:MM:SS  lat, lon
group`, and a progress line `HH:MM:SS of HH:MM:SS  N fixes delivered`. All of
them must be the walk's time: a header's time never differs from the progress
line's by more than the time since the last delivered fix (here: never more
than the walk's longest gap between delivered fixes, and never later).

usage: check_realtime_pty.py STROLL
"""
import os
import pty
import re
import select
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def seconds(clock):
    h, m, s = (int(x) for x in clock.split(":"))
    return h * 3600 + m * 60 + s


def main():
    stroll = sys.argv[1]
    walk = os.path.join(ROOT, "traces", "campus-loop.gpx")
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(stroll, [stroll, "replay", walk, "--realtime", "--speed", "120"])
    out = b""
    deadline = time.time() + 60
    while time.time() < deadline:
        ready, _, _ = select.select([fd], [], [], 1)
        if not ready:
            continue
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    os.waitpid(pid, 0)
    text = out.decode("utf-8", "replace")
    screens = [s for s in text.split("\x1b[H\x1b[2J") if "fixes delivered" in s]
    assert len(screens) >= 10, f"only {len(screens)} screens drawn"
    worst = 0
    for screen in screens:
        progress = re.search(r"^(\d\d:\d\d:\d\d) of (\d\d:\d\d:\d\d)\s+(\d+) fixes delivered", screen, re.M)
        assert progress, screen
        now = seconds(progress.group(1))
        headers = [seconds(m.group(1)) for m in re.finditer(r"^(\d\d:\d\d:\d\d)  -?\d+\.\d+, -?\d+\.\d+  ", screen, re.M)]
        assert headers, screen
        for h in headers:
            assert h <= now, f"a header at {h} s is ahead of the walk's {now} s"
            worst = max(worst, now - h)
    # Fixes come at least every few seconds of walk time on this walk; wall-clock times at 120x would lag by minutes.
    assert worst <= 30, f"a header lags the progress line by {worst} s of walk time"
    print(f"pty: {len(screens)} screens; header times within {worst} s of the progress line's walk time")


if __name__ == "__main__":
    main()
