#!/usr/bin/python3
"""Checks `stroll serve` with Debian's real gpsd clients and gpsd itself.

Run by `make test-serve` (which installs gpsd, gpsd-clients and python3-gps)
with Debian's /usr/bin/python3, the one python3-gps is installed for:

    check_serve.py STROLL_BINARY [--soak]

Every check uses loopback addresses. No check waits a fixed time or measures
a rate: each waits for what it needs to see (the banner `stroll serve`
prints, gpsd's socket accepting, a client's WATCH answered, a count of
reports), and passes or fails on what was received. Each wait has a generous
limit (HANG_GUARD) only so that a broken server fails the check instead of
hanging it; on a working one no wait comes near it.
1. gpspipe -w and a python3-gps client session against `stroll serve --gpsd`
   receive TPV reports whose positions and times equal the fixes
   `stroll replay --format jsonl` delivers for the same trace and options.
2. Debian's gpsd reading Stroll's NMEA stream (gpsd -N -n tcp://...) reports
   the same positions to gpspipe (to NMEA's precision).
3. Malformed commands get gpsd's ERROR objects (or, for an over-long line, a
   closed connection), while a walk is being served; the server and the
   well-behaved client carry on: it receives every report, in order, before,
   during and after them.
4. With --soak: 50 clients at once on a looping replay of every fix (1 Hz,
   --speed 500) each receive the same reports, in the order `stroll replay`
   delivers them and with no gap, for two whole walks (3082 reports); two
   clients that never read (a gpsd watcher, a page's event stream) are
   dropped as docs/CLI.md says (a line on standard error each) and no other
   client is; the server's memory, sampled every 500 reports, stays flat; Ctrl-C
   ends it cleanly.

A well-behaved client is dropped only if it falls behind by the server's
256 KiB queue plus the kernel's socket buffers (megabytes on loopback):
at --speed 500 that is many seconds of not reading at all.
"""
import json
import os
import re
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
TRACE = os.path.join(ROOT, "traces", "campus-loop.gpx")
OPTIONS = ["--accuracy", "10", "--distance-filter", "25"]
# Seconds any one wait may last before the check gives up on it: a guard
# against a hang, never what decides a pass (a working server is done with
# every wait long before).
HANG_GUARD = 120
WATCH = b'?WATCH={"enable":true,"json":true};\n'
failures = []


def check(condition, message):
    print(("ok   " if condition else "FAIL ") + message, flush=True)
    if not condition:
        failures.append(message)


def delivered(stroll, trace, options):
    out = subprocess.run([stroll, "replay", trace, "--format", "jsonl"] + options, capture_output=True, text=True,
                         timeout=HANG_GUARD, check=True).stdout
    return [e for e in map(json.loads, out.splitlines()) if e.get("type") == "location"]


class Lines:
    """A pipe's lines, read on a thread as they come; `wait` returns once a
    condition on them holds (or the pipe ends, or HANG_GUARD passes)."""

    def __init__(self, stream, counting=None):
        self.lines = []
        self.counting = counting
        self.count = 0
        self.ended = False
        self.changed = threading.Condition()
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream):
        for line in stream:
            with self.changed:
                self.lines.append(line)
                if self.counting and self.counting in line:
                    self.count += 1
                self.changed.notify_all()
        with self.changed:
            self.ended = True
            self.changed.notify_all()

    def wait(self, condition, guard=HANG_GUARD):
        with self.changed:
            self.changed.wait_for(lambda: condition(self) or self.ended, timeout=guard)
            return condition(self)

    def wait_end(self, guard=HANG_GUARD):
        return self.wait(lambda s: s.ended, guard)


class Serve:
    """`stroll serve`, started and read until its banner says it is listening."""

    def __init__(self, stroll, arguments):
        self.process = subprocess.Popen([stroll, "serve"] + arguments, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.out = Lines(self.process.stdout)
        self.err = Lines(self.process.stderr)
        if not self.out.wait(lambda s: any(l.startswith("replaying") for l in s.lines)):
            self.stop()
            raise RuntimeError("stroll serve did not start: " + "".join(self.out.lines + self.err.lines))
        self.ports = {}
        for line in self.out.lines:
            m = re.match(r"serving (\w+) on 127\.0\.0\.1:(\d+)", line)
            if m:
                self.ports[m.group(1)] = int(m.group(2))

    def interrupt(self):
        """Ctrl-C; the exit status (None if it had to be killed)."""
        self.process.send_signal(signal.SIGINT)
        return self.ended()

    def ended(self):
        try:
            return self.process.wait(timeout=HANG_GUARD)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            return None

    def stop(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def stop(process):
    if process and process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_accepting(port, process):
    """Polls until something accepts connections on the port (or the process ended)."""
    deadline = time.monotonic() + HANG_GUARD
    while time.monotonic() < deadline and process.poll() is None:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return True
        except OSError:
            time.sleep(0.02)
    return False


def tpvs(lines):
    reports = []
    for line in lines:
        try:
            report = json.loads(line)
        except ValueError:
            continue
        if report.get("class") == "TPV" and "lat" in report:
            reports.append(report)
    return reports


def tpv_time(report):
    return report.get("time", "").replace(".000Z", "Z")


def same_fixes(reports, expected, tolerance, label, times=True):
    check(len(reports) == len(expected), f"{label}: {len(reports)} TPV reports for {len(expected)} delivered fixes")
    worst = 0.0
    wrong_time = 0
    for r, e in zip(reports, expected):
        worst = max(worst, abs(r["lat"] - e["lat"]), abs(r["lon"] - e["lon"]))
        if times and tpv_time(r) != e["timestamp"]:
            wrong_time += 1
    check(worst <= tolerance, f"{label}: positions within {tolerance} degrees (worst {worst:.2e})")
    if times:
        check(wrong_time == 0, f"{label}: every TPV time equals the delivered fix's ({wrong_time} differ)")


def in_walk_order(reports, expected):
    """Whether the reports are the delivered fixes, walk after walk, from the
    first on, with none missing, added or moved; else the first that is not."""
    for k, r in enumerate(reports):
        e = expected[k % len(expected)]
        if (r["lat"], r["lon"], tpv_time(r)) != (e["lat"], e["lon"], e["timestamp"]):
            return f"report {k} is {tpv_time(r)} {r['lat']},{r['lon']}, expected {e['timestamp']} {e['lat']},{e['lon']}"
    return None


def python_gps_session(port, into):
    """A python3-gps client: what a Python app that reads gpsd does."""
    import gps
    session = gps.gps(host="127.0.0.1", port=port, mode=gps.WATCH_ENABLE | gps.WATCH_JSON)
    try:
        while True:
            report = session.next()
            if report["class"] == "TPV" and hasattr(report, "lat"):
                into.append({"lat": report.lat, "lon": report.lon, "time": report.get("time", "")})
    except (StopIteration, ConnectionError, OSError):
        pass


def check_clients(stroll):
    expected = delivered(stroll, TRACE, OPTIONS)
    serve = Serve(stroll, [TRACE, "--gpsd", "127.0.0.1:0", "--nmea", "127.0.0.1:0", "--speed", "200", "--wait-for-clients", "3"] + OPTIONS)
    gpsd_port = free_port()
    workdir = tempfile.mkdtemp(prefix="stroll-serve-")
    gpsd = via_gpsd = pipe = None
    try:
        # Real gpsd, in the foreground, reading Stroll's NMEA stream as a TCP source (one of the three
        # clients the walk waits for), and gpspipe reading gpsd, watching before the walk starts.
        gpsd = subprocess.Popen(["gpsd", "-N", "-n", "-b", "-S", str(gpsd_port), "-F", os.path.join(workdir, "control"), f"tcp://127.0.0.1:{serve.ports['nmea']}"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        check(wait_accepting(gpsd_port, gpsd), "gpsd listens")
        via_gpsd = subprocess.Popen(["gpspipe", "-w", f"127.0.0.1:{gpsd_port}"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        from_gpsd_lines = Lines(via_gpsd.stdout)
        check(from_gpsd_lines.wait(lambda s: any('"class":"WATCH"' in l for l in s.lines)), "gpspipe's WATCH is answered by gpsd")
        # The walk starts when these two watch (with gpsd, three clients).
        pipe = subprocess.Popen(["gpspipe", "-w", f"127.0.0.1:{serve.ports['gpsd']}"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        piped = Lines(pipe.stdout)
        from_python = []
        thread = threading.Thread(target=python_gps_session, args=(serve.ports["gpsd"], from_python), daemon=True)
        thread.start()
        # The walk's end closes every connection: gpspipe and the session end.
        check(piped.wait_end(), "gpspipe's stream ends with the walk")
        check(serve.ended() == 0, "stroll serve exits 0 when the walk ends")
        thread.join(timeout=HANG_GUARD)
        # gpsd reports each NMEA epoch it read: wait until it has reported them all.
        wanted = {e["timestamp"] for e in expected}

        def all_epochs(s):
            return wanted <= {tpv_time(r) for r in tpvs(s.lines) if r.get("mode", 0) >= 2}
        from_gpsd_lines.wait(all_epochs)
        via_gpsd.terminate()
        from_gpsd_lines.wait_end()
    finally:
        for p in (serve.process, gpsd, via_gpsd, pipe):
            stop(p)
        shutil.rmtree(workdir, ignore_errors=True)
    lines = piped.lines
    check(lines and json.loads(lines[0]).get("class") == "VERSION", "gpspipe: the VERSION banner comes first")
    check(any(json.loads(l).get("class") == "DEVICES" for l in lines[:3]) and any(json.loads(l).get("class") == "WATCH" for l in lines[:4]),
          "gpspipe: ?WATCH is answered with DEVICES and WATCH")
    same_fixes(tpvs(lines), expected, 0.0, "gpspipe -w against stroll serve --gpsd")
    same_fixes(from_python, expected, 0.0, "python3-gps session")
    # gpsd reports each NMEA epoch (time, position) it read; the sentences carry minutes to 6 decimals.
    from_gpsd = [r for r in tpvs(from_gpsd_lines.lines) if r.get("mode", 0) >= 2]
    by_time = {}
    for r in from_gpsd:
        by_time[tpv_time(r)] = r
    matched = [by_time.get(e["timestamp"]) for e in expected]
    missing = [e["timestamp"] for e, m in zip(expected, matched) if m is None]
    check(not missing, f"gpsd via NMEA: a TPV for every delivered fix ({len(expected) - len(missing)} of {len(expected)}; missing {missing[:12]})")
    same_fixes([m for m in matched if m], [e for e, m in zip(expected, matched) if m], 2e-8, "gpsd reading stroll serve --nmea", times=False)


def answer(s, until):
    """What the server sends on s until `until(text)` holds, it closes or resets
    the connection, or the socket's timeout (the hang guard) passes."""
    data = b""
    try:
        while not until(data.decode("utf-8", "replace")):
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    except (ConnectionResetError, socket.timeout):
        pass
    return data.decode("utf-8", "replace")


def has_class(name):
    return lambda text: any(l.startswith("{") and json.loads(l).get("class") == name for l in text.split("\n")[:-1])


def check_bad_input(stroll):
    expected = delivered(stroll, TRACE, OPTIONS)
    # Looping, so that the bad clients are served while a walk goes on, however long they take.
    serve = Serve(stroll, [TRACE, "--gpsd", "127.0.0.1:0", "--speed", "400", "--loop", "--wait-for-clients", "1"] + OPTIONS)
    good = None
    try:
        good = subprocess.Popen(["gpspipe", "-w", f"127.0.0.1:{serve.ports['gpsd']}"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        received = Lines(good.stdout, counting='"class":"TPV"')
        check(received.wait(lambda s: s.count >= 1), "the well-behaved client's walk has started")
        answers = {}
        for label, payload, until in [("bad WATCH JSON", b'?WATCH={"enable":tru;\n', has_class("ERROR")),
                                      ("unknown command", b"?FROBNICATE;\n", has_class("ERROR")),
                                      ("binary garbage", bytes(range(256)) + b"\n", has_class("ERROR")),
                                      ("POLL", b"?POLL;\n", has_class("POLL"))]:
            with socket.create_connection(("127.0.0.1", serve.ports["gpsd"]), timeout=HANG_GUARD) as s:
                answer(s, has_class("VERSION"))
                s.sendall(payload)
                answers[label] = answer(s, until)
        for label in ["bad WATCH JSON", "unknown command", "binary garbage"]:
            objects = [json.loads(l) for l in answers[label].splitlines() if l.startswith("{")]
            check(any(o.get("class") == "ERROR" for o in objects), f"{label}: gpsd's ERROR object")
        poll = [json.loads(l) for l in answers["POLL"].splitlines() if l.startswith("{")]
        check(any(o.get("class") == "POLL" for o in poll), "?POLL: a POLL object")
        with socket.create_connection(("127.0.0.1", serve.ports["gpsd"]), timeout=HANG_GUARD) as s:
            answer(s, has_class("VERSION"))
            try:
                s.sendall(b"?" + b"A" * 100000)
            except (BrokenPipeError, ConnectionResetError):
                pass
            data = answer(s, lambda text: False)
            check("ERROR" in data, "a 100 kB line without a terminator: an ERROR, then the connection is closed")
        # A whole walk more after the bad clients, then Ctrl-C.
        after = received.count
        check(received.wait(lambda s: s.count >= after + len(expected)), f"the well-behaved client receives a whole walk after them ({received.count - after} reports)")
        check(serve.interrupt() == 0, "Ctrl-C ends stroll serve cleanly")
        received.wait_end()
    finally:
        stop(serve.process)
        stop(good)
    reports = tpvs(received.lines)
    wrong = in_walk_order(reports, expected)
    check(not wrong and len(reports) >= after + len(expected),
          f"the well-behaved client received every report meanwhile, in order ({len(reports)} reports, {len(reports) / len(expected):.1f} walks){': ' + wrong if wrong else ''}")


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def check_soak(stroll, clients=50, walks=2, sample_every=500):
    options = ["--rate", "1", "--distance-filter", "none"]
    expected = delivered(stroll, TRACE, options)
    wanted = walks * len(expected)
    serve = Serve(stroll, [TRACE, "--gpsd", "127.0.0.1:0", "--http", "127.0.0.1:0", "--speed", "500", "--loop",
                           "--wait-for-clients", str(clients + 2)] + options)
    # Two clients that never read, with small receive buffers: a gpsd watcher
    # taking the NMEA sentences as well, and a page's event stream.
    silent = []
    for port, request in [(serve.ports["gpsd"], b'?WATCH={"enable":true,"json":true,"nmea":true};\n'),
                          (serve.ports["http"], b"GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")]:
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.connect(("127.0.0.1", port))
        s.sendall(request)
        silent.append(s)
    selector = selectors.DefaultSelector()
    received = {}
    for k in range(clients):
        s = socket.create_connection(("127.0.0.1", serve.ports["gpsd"]), timeout=HANG_GUARD)
        s.setblocking(False)
        s.sendall(WATCH)
        selector.register(s, selectors.EVENT_READ, k)
        received[k] = [b"", []]
    memory = []
    deadline = time.monotonic() + HANG_GUARD

    def dropped(s):
        return sum("stopped reading" in l for l in s.lines) >= 2
    # Until every client has two walks and both silent clients are dropped (count
    # and event, not time: the deadline is the hang guard).
    while time.monotonic() < deadline and selector.get_map():
        if all(len(v[1]) >= wanted for v in received.values()) and dropped(serve.err):
            break
        for key, _ in selector.select(timeout=1):
            try:
                chunk = key.fileobj.recv(1 << 20)
            except BlockingIOError:
                continue
            except OSError:
                chunk = b""
            if not chunk:
                selector.unregister(key.fileobj)
                continue
            buffer = received[key.data][0] + chunk
            *lines, rest = buffer.split(b"\n")
            received[key.data][0] = rest
            reports = received[key.data][1]
            for line in lines:
                if b'"class":"TPV"' in line:
                    reports.append(line)
                    if key.data == 0 and len(reports) % sample_every == 0:
                        memory.append(rss_kib(serve.process.pid))
    closed = clients - len(selector.get_map())
    status = serve.interrupt()
    for key in list(selector.get_map().values()):
        key.fileobj.close()
    # The silent clients' connections were closed by the server: they read to the end.
    silent_ended = []
    for s in silent:
        s.settimeout(HANG_GUARD)
        try:
            while s.recv(1 << 20):
                pass
            silent_ended.append(True)
        except ConnectionResetError:
            silent_ended.append(True)
        except socket.timeout:
            silent_ended.append(False)
        s.close()
    serve.out.wait_end()
    counts = [len(v[1]) for v in received.values()]
    check(closed == 0 and min(counts) >= wanted,
          f"soak: each of the {clients} clients received at least {walks} walks ({wanted} reports): {min(counts)}..{max(counts)}; {closed} closed early")
    # The same lines for every client (the server writes one text to all), and they are the delivered fixes in order.
    reference = max(received.values(), key=lambda v: len(v[1]))[1]
    check(all(v[1] == reference[:len(v[1])] for v in received.values()), f"soak: all {clients} clients received the same reports in the same order")
    wrong = in_walk_order([json.loads(l) for l in reference], expected)
    check(not wrong, f"soak: the reports are the {len(expected)} fixes `stroll replay` delivers, walk after walk, with no gap{': ' + wrong if wrong else ''}")
    drops = [l.strip() for l in serve.err.lines if "stopped reading" in l]
    last = serve.out.lines[-1].strip() if serve.out.lines else ""
    check(len(drops) == 2 and all(silent_ended) and last.endswith("; 2 slow clients dropped"),
          f"soak: the two clients that never read were dropped, no other ({drops}; {last!r})")
    check(status == 0 and last.startswith("stopped by a signal"), f"soak: Ctrl-C ends stroll serve cleanly (exit {status})")
    print(f"soak: {clients} clients, {len(reference)} reports each; server resident memory every {sample_every} reports (MiB): "
          + " ".join(f"{m / 1024:.1f}" for m in memory), flush=True)
    check(len(memory) >= 3 and max(memory[1:]) - min(memory[1:]) < 16 * 1024, "soak: memory stays flat (within 16 MiB after the first sample)")


def main():
    stroll = os.path.abspath(sys.argv[1])
    check_clients(stroll)
    check_bad_input(stroll)
    if "--soak" in sys.argv:
        check_soak(stroll)
    print(f"{len(failures)} failed" if failures else "all serve checks passed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
