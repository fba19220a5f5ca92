#!/usr/bin/env python3
"""Drives `stroll replay --realtime --speed 120` and `stroll batch` on a
pseudo-terminal, as a person would watch them. First `replay`, whose
screens, drawn in place, it reads.

Every screen shows the ranked lists, each under a header `HH:MM:SS  lat, lon
group`, and a progress line `HH:MM:SS of HH:MM:SS  N fixes delivered`. All of
them must be the walk's time: a header's time never differs from the progress
line's by more than the time since the last delivered fix (here: never more
than the walk's longest gap between delivered fixes, and never later).

Then `stroll batch` on a terminal draws a progress line in place (walks done
of total, elapsed, the running walks), while on a pipe it writes plain lines.

Last the other long commands: `trace info` and `trace convert` on a large
GPX file and `bench` over many places draw their progress (bytes read of the
file's size, updates done of the total, each with the time left) on standard
error in place and clear it before their output; on a pipe their standard
error stays empty.

usage: check_realtime_pty.py STROLL
"""
import os
import pty
import re
import select
import signal
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def seconds(clock):
    h, m, s = (int(x) for x in clock.split(":"))
    return h * 3600 + m * 60 + s


# Seconds a command on the terminal may run before it is taken for a hang and
# killed: a guard, not a limit any check relies on (the longest, the replay at
# --speed 120, takes 13 s).
HANG_GUARD = 300


def on_pty(argv, cwd=None):
    """Runs argv on a new pseudo-terminal and reads what it draws until it
    closes the terminal; its output and exit code. A command still running
    after HANG_GUARD seconds is killed (SIGKILL) before it is waited for, so
    that nothing here blocks without bound, and is an error."""
    pid, fd = pty.fork()
    if pid == 0:
        if cwd:
            os.chdir(cwd)
        os.execv(argv[0], argv)
    out = b""
    deadline = time.monotonic() + HANG_GUARD
    try:
        while time.monotonic() < deadline:
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
        status, killed = reap(pid, deadline)
    finally:
        os.close(fd)
    assert not killed, f"{' '.join(argv[1:3])} was still running after {HANG_GUARD} s (killed): {out[-2000:]!r}"
    return out.decode("utf-8", "replace"), os.waitstatus_to_exitcode(status)


def reap(pid, deadline):
    """The child's wait status, and whether it had to be killed: polled
    without blocking until the deadline, then SIGKILL and a wait that returns."""
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status, False
        if time.monotonic() >= deadline:
            os.kill(pid, signal.SIGKILL)
            return os.waitpid(pid, 0)[1], True
        time.sleep(0.01)


def main():
    stroll = sys.argv[1]
    walk = os.path.join(ROOT, "traces", "campus-loop.gpx")
    text, _ = on_pty([stroll, "replay", walk, "--realtime", "--speed", "120"])
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

    import tempfile
    walks = [os.path.join(ROOT, "traces", f) for f in sorted(os.listdir(os.path.join(ROOT, "traces"))) if f.endswith((".gpx", ".csv"))]
    with tempfile.TemporaryDirectory() as tmp:
        text, code = on_pty([stroll, "batch", *walks, "--jobs", "2", "--out", os.path.join(tmp, "runs"), "--rate", "10"])
        assert code == 0, text
        progress = re.findall(r"\r\x1b\[K(\d+)/(\d+) walks, elapsed \d\d:\d\d:\d\d", text)
        assert progress and all(int(t) == len(walks) for _, t in progress), text[-2000:]
        assert "; running: " in text, text[-2000:]
        assert all(f"[done] {w}" in text for w in walks)
        plain = __import__("subprocess").run([stroll, "batch", *walks, "--jobs", "2", "--out", os.path.join(tmp, "piped"), "--rate", "10"],
                                             capture_output=True, text=True, timeout=HANG_GUARD)
        assert plain.returncode == 0 and "\x1b[" not in plain.stdout and "[running]" in plain.stdout
    print(f"pty: batch drew {len(progress)} progress lines in place; on a pipe, plain lines")

    import subprocess
    with tempfile.TemporaryDirectory() as tmp:
        big = os.path.join(tmp, "long.gpx")
        with open(big, "w") as f:
            f.write('<?xml version="1.0"?>\n<gpx version="1.1" creator="check"><trk><trkseg>\n')
            for i in range(400_000):
                s = 1_700_000_000 + i
                f.write(f'<trkpt lat="{53.40 + (i % 2000) * 1e-5:.7f}" lon="{-2.97 + (i // 2000) * 1e-5:.7f}">'
                        f'<ele>12.5</ele><time>{time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(s))}</time></trkpt>\n')
            f.write("</trkseg></trk></gpx>\n")
        size_mb = os.path.getsize(big) / 1e6
        for argv, expect, result in [
            ([stroll, "trace", "info", big], r"reading long\.gpx: \d+\.\d MB of %.1f MB \(\d+ %%\), elapsed" % size_mb, "format      gpx"),
            ([stroll, "trace", "convert", big, os.path.join(tmp, "long.csv")], r"reading long\.gpx: .* MB of", "wrote "),
            ([stroll, "bench", "--places", "200000", "--variant", "full"], r"full over 200000 places: update \d+ of \d+, last \d", "full over 200000 places, "),
        ]:
            text, code = on_pty(argv)
            assert code == 0, text[-2000:]
            drawn = re.findall(r"\r\x1b\[K([^\r\n]*)", text)
            assert any(re.match(expect, d) for d in drawn), (argv, drawn[:5])
            # The line is cleared before the output, which starts on a clean line.
            assert text.split("\r\x1b[K")[-1].startswith(result), text[-600:]
            piped = subprocess.run(argv, capture_output=True, text=True, timeout=HANG_GUARD)
            assert piped.returncode == 0 and piped.stderr == "" and "\x1b[" not in piped.stdout and result in piped.stdout, piped.stderr[-500:]
            print(f"pty: {argv[1]} {argv[2]}: {len(drawn)} progress lines drawn in place and cleared; on a pipe, none")


if __name__ == "__main__":
    main()
