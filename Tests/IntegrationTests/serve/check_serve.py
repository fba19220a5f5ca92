#!/usr/bin/python3
"""Checks `stroll serve` with Debian's real gpsd clients and gpsd itself.

Run by `make test-serve` (which installs gpsd, gpsd-clients and python3-gps)
with Debian's /usr/bin/python3, the one python3-gps is installed for:

    check_serve.py STROLL_BINARY [--soak]

Every check uses loopback addresses and ends within its own time limit.
1. gpspipe -w and a python3-gps client session against `stroll serve --gpsd`
   receive TPV reports whose positions and times equal the fixes
   `stroll replay --format jsonl` delivers for the same trace and options.
2. Debian's gpsd reading Stroll's NMEA stream (gpsd -N -n tcp://...) reports
   the same positions to gpspipe (to NMEA's precision).
3. Malformed commands get gpsd's ERROR objects (or, for an over-long line, a
   closed connection); the server and the other clients carry on.
4. With --soak: 50 clients at once on a 1 Hz replay at --speed 60 for a
   minute all receive every report in order; the server's memory is sampled.
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
failures = []


def check(condition, message):
    print(("ok   " if condition else "FAIL ") + message, flush=True)
    if not condition:
        failures.append(message)


def delivered(stroll, trace, options):
    out = subprocess.run([stroll, "replay", trace, "--format", "jsonl"] + options, capture_output=True, text=True, timeout=120, check=True).stdout
    return [e for e in map(json.loads, out.splitlines()) if e.get("type") == "location"]


def start_serve(stroll, arguments, timeout=10):
    """Starts `stroll serve` and returns (process, {service: port})."""
    process = subprocess.Popen([stroll, "serve"] + arguments, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    ports = {}
    deadline = time.time() + timeout
    while time.time() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        m = re.match(r"serving (\w+) on 127\.0\.0\.1:(\d+)", line)
        if m:
            ports[m.group(1)] = int(m.group(2))
        if line.startswith("replaying"):
            return process, ports
    process.kill()
    raise RuntimeError("stroll serve did not start: " + process.stderr.read())


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


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


def same_fixes(reports, expected, tolerance, label, times=True):
    check(len(reports) == len(expected), f"{label}: {len(reports)} TPV reports for {len(expected)} delivered fixes")
    worst = 0.0
    wrong_time = 0
    for r, e in zip(reports, expected):
        worst = max(worst, abs(r["lat"] - e["lat"]), abs(r["lon"] - e["lon"]))
        if times and r.get("time", "").replace(".000Z", "Z") != e["timestamp"]:
            wrong_time += 1
    check(worst <= tolerance, f"{label}: positions within {tolerance} degrees (worst {worst:.2e})")
    if times:
        check(wrong_time == 0, f"{label}: every TPV time equals the delivered fix's ({wrong_time} differ)")


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
    speed = "200"
    process, ports = start_serve(stroll, [TRACE, "--gpsd", "127.0.0.1:0", "--nmea", "127.0.0.1:0", "--speed", speed, "--wait-for-clients", "3"] + OPTIONS)
    gpsd_port = free_port()
    workdir = tempfile.mkdtemp(prefix="stroll-serve-")
    gpsd = None
    try:
        # Real gpsd, in the foreground, reading Stroll's NMEA stream as a TCP source, and gpspipe
        # reading gpsd; they connect first, so that the walk starts (the third client) with them listening.
        gpsd = subprocess.Popen(["gpsd", "-N", "-n", "-b", "-S", str(gpsd_port), "-F", os.path.join(workdir, "control"), f"tcp://127.0.0.1:{ports['nmea']}"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        time.sleep(1.0)
        via_gpsd = subprocess.Popen(["gpspipe", "-w", f"127.0.0.1:{gpsd_port}"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        time.sleep(1.0)
        pipe = subprocess.Popen(["gpspipe", "-w", f"127.0.0.1:{ports['gpsd']}"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        from_python = []
        thread = threading.Thread(target=python_gps_session, args=(ports["gpsd"], from_python), daemon=True)
        thread.start()
        out, _ = pipe.communicate(timeout=120)
        process.wait(timeout=30)
        thread.join(timeout=10)
        time.sleep(1.0)
        via_gpsd.terminate()
        gpsd_out, _ = via_gpsd.communicate(timeout=10)
    finally:
        for p in (process, gpsd):
            if p and p.poll() is None:
                p.terminate()
                p.wait(timeout=10)
        shutil.rmtree(workdir, ignore_errors=True)
    lines = out.splitlines()
    check(lines and json.loads(lines[0]).get("class") == "VERSION", "gpspipe: the VERSION banner comes first")
    check(any(json.loads(l).get("class") == "DEVICES" for l in lines[:3]) and any(json.loads(l).get("class") == "WATCH" for l in lines[:4]),
          "gpspipe: ?WATCH is answered with DEVICES and WATCH")
    same_fixes(tpvs(lines), expected, 0.0, "gpspipe -w against stroll serve --gpsd")
    same_fixes(from_python, expected, 0.0, "python3-gps session")
    # gpsd reports each NMEA epoch (time, position) it read; the sentences carry minutes to 6 decimals.
    from_gpsd = [r for r in tpvs(gpsd_out.splitlines()) if r.get("mode", 0) >= 2]
    by_time = {}
    for r in from_gpsd:
        by_time[r.get("time", "").replace(".000Z", "Z")] = r
    matched = [by_time.get(e["timestamp"]) for e in expected]
    missing = [e["timestamp"] for e, m in zip(expected, matched) if m is None]
    check(not missing, f"gpsd via NMEA: a TPV for every delivered fix ({len(expected) - len(missing)} of {len(expected)}; missing {missing[:12]})")
    same_fixes([m for m in matched if m], [e for e, m in zip(expected, matched) if m], 2e-8, "gpsd reading stroll serve --nmea", times=False)


def check_bad_input(stroll):
    process, ports = start_serve(stroll, [TRACE, "--gpsd", "127.0.0.1:0", "--speed", "100", "--wait-for-clients", "1"] + OPTIONS)
    try:
        good = subprocess.Popen(["gpspipe", "-w", f"127.0.0.1:{ports['gpsd']}"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        answers = {}
        for label, payload in [("bad WATCH JSON", b'?WATCH={"enable":tru;\n'), ("unknown command", b"?FROBNICATE;\n"),
                               ("binary garbage", bytes(range(256)) + b"\n"), ("POLL", b"?POLL;\n")]:
            with socket.create_connection(("127.0.0.1", ports["gpsd"]), timeout=5) as s:
                s.recv(4096)  # VERSION
                s.sendall(payload)
                time.sleep(0.2)
                answers[label] = s.recv(65536).decode("utf-8", "replace")
        for label in ["bad WATCH JSON", "unknown command", "binary garbage"]:
            objects = [json.loads(l) for l in answers[label].splitlines() if l.startswith("{")]
            check(any(o.get("class") == "ERROR" for o in objects), f"{label}: gpsd's ERROR object")
        poll = [json.loads(l) for l in answers["POLL"].splitlines() if l.startswith("{")]
        check(any(o.get("class") == "POLL" for o in poll), "?POLL: a POLL object")
        with socket.create_connection(("127.0.0.1", ports["gpsd"]), timeout=5) as s:
            s.recv(4096)
            s.sendall(b"?" + b"A" * 100000)
            time.sleep(0.3)
            data = b""
            try:
                while True:
                    chunk = s.recv(65536)
                    if not chunk:
                        break
                    data += chunk
            except (ConnectionResetError, socket.timeout):
                pass
            check(b"ERROR" in data, "a 100 kB line without a terminator: an ERROR, then the connection is closed")
        out, _ = good.communicate(timeout=120)
        process.wait(timeout=30)
        check(len(tpvs(out.splitlines())) == len(delivered(stroll, TRACE, OPTIONS)), "the well-behaved client received every report meanwhile")
    finally:
        if process.poll() is None:
            process.terminate()
            process.wait(timeout=10)


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def check_soak(stroll, clients=50, seconds=60):
    arguments = [TRACE, "--gpsd", "127.0.0.1:0", "--speed", "60", "--rate", "1", "--distance-filter", "none", "--loop",
                 "--wait-for-clients", str(clients)]
    process, ports = start_serve(stroll, arguments)
    selector = selectors.DefaultSelector()
    received = {}
    for k in range(clients):
        s = socket.create_connection(("127.0.0.1", ports["gpsd"]), timeout=5)
        s.setblocking(False)
        s.sendall(b'?WATCH={"enable":true,"json":true};\n')
        selector.register(s, selectors.EVENT_READ, k)
        received[k] = [b"", []]
    memory = []
    start = time.time()
    next_sample = start
    while time.time() - start < seconds:
        for key, _ in selector.select(timeout=0.5):
            chunk = key.fileobj.recv(1 << 20)
            buffer = received[key.data][0] + chunk
            *lines, rest = buffer.split(b"\n")
            received[key.data][0] = rest
            for line in lines:
                if b'"class":"TPV"' in line:
                    received[key.data][1].append(json.loads(line)["time"])
        if time.time() >= next_sample:
            memory.append(rss_kib(process.pid))
            next_sample += 5
    process.send_signal(signal.SIGINT)
    try:
        ended = process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        ended = None
    for key in list(selector.get_map().values()):
        key.fileobj.close()
    counts = [len(v[1]) for v in received.values()]
    reference = received[0][1]
    check(min(counts) > 50 * seconds, f"soak: every client received reports ({min(counts)}..{max(counts)} each over {seconds} s)")
    # In order: every client's sequence is a prefix of the longest (the first may stop one report later).
    longest = max(received.values(), key=lambda v: len(v[1]))[1]
    check(all(v[1] == longest[:len(v[1])] and len(longest) - len(v[1]) <= 2 for v in received.values()),
          f"soak: all {clients} clients received the same reports in the same order")
    check(ended == 0, f"soak: Ctrl-C ends stroll serve cleanly (exit {ended})")
    print(f"soak: {clients} clients, {len(reference)} reports each; server resident memory every 5 s (MiB): "
          + " ".join(f"{m / 1024:.1f}" for m in memory), flush=True)
    check(max(memory[1:] or [0]) - min(memory[1:] or [0]) < 16 * 1024, "soak: memory stays flat (within 16 MiB after the first sample)")


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
