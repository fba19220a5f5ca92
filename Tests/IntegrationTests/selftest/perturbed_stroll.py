#!/usr/bin/env python3
"""A `stroll` that is wrong in one way a user would notice: it runs the real
binary ($STROLL_REAL) and changes what one command gives, as
$STROLL_PERTURB says. Every other command is the real one (exec'd as it is).
The self-test (run_selftest.py) hands it to the integration checks in place
of stroll; each check must fail on it.

STROLL_PERTURB:
  tpv-shift       `stroll serve`: every TPV report a gpsd client receives has
                  its latitude 1e-5 degrees (1.1 m) north of the fix.
                  (gpsd's port is proxied; the NMEA and HTTP ports are not.)
  junit-pass      `stroll batch --junit FILE`: the first diverged walk is
                  reported as passing (its <failure> dropped from the report).
  header-ahead    `stroll replay --realtime` on a terminal: every ranking
                  header shows a time 60 s ahead of the fix it belongs to.
  cluster-swap    `stroll replay --cluster`: in every map event the member
                  lists of a group's first two clusters are swapped (a
                  tapped cluster lists another cluster's pins).
"""
import fcntl
import json
import os
import pty
import re
import select
import signal
import socket
import subprocess
import sys
import termios
import threading

REAL = os.environ["STROLL_REAL"]
KIND = os.environ.get("STROLL_PERTURB", "")


def real(args):
    os.execv(REAL, [REAL] + args)


def option(args, name):
    return args[args.index(name) + 1] if name in args and args.index(name) + 1 < len(args) else None


# tpv-shift ------------------------------------------------------------------

def shift_tpv(line):
    if b'"class":"TPV"' not in line or b'"lat":' not in line:
        return line
    return re.sub(rb'"lat":(-?[0-9.]+)', lambda m: b'"lat":%.7f' % (float(m.group(1)) + 1e-5), line, count=1)


def pipe_up(client, upstream):
    try:
        while True:
            data = client.recv(65536)
            if not data:
                break
            upstream.sendall(data)
    except OSError:
        pass
    try:
        upstream.shutdown(socket.SHUT_WR)
    except OSError:
        pass


def pipe_down(upstream, client):
    pending = b""
    try:
        while True:
            data = upstream.recv(65536)
            if not data:
                break
            *lines, pending = (pending + data).split(b"\n")
            if lines:
                client.sendall(b"".join(shift_tpv(l) + b"\n" for l in lines))
        if pending:
            client.sendall(shift_tpv(pending))
    except OSError:
        pass
    # shutdown() first: it ends the other thread's blocked recv (close() alone would not, and
    # the connection would stay open).
    for s in (client, upstream):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        s.close()


def proxy(listener, upstream_port):
    while True:
        client, _ = listener.accept()
        upstream = socket.create_connection(("127.0.0.1", upstream_port))
        threading.Thread(target=pipe_up, args=(client, upstream), daemon=True).start()
        threading.Thread(target=pipe_down, args=(upstream, client), daemon=True).start()


def serve_shifted(args):
    asked = option(args, "--gpsd") or "127.0.0.1:2947"
    if "--gpsd" in args:
        args = list(args)
        args[args.index("--gpsd") + 1] = "127.0.0.1:0"
    else:
        args = list(args) + ["--gpsd", "127.0.0.1:0"]
    child = subprocess.Popen([REAL] + args, stdout=subprocess.PIPE)
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda number, _: child.send_signal(number))
    for line in child.stdout:
        m = re.match(rb"serving gpsd on 127\.0\.0\.1:(\d+)", line)
        if m:
            host, port = asked.rsplit(":", 1)
            listener = socket.create_server((host, int(port)), backlog=256)
            threading.Thread(target=proxy, args=(listener, int(m.group(1))), daemon=True).start()
            line = b"serving gpsd on 127.0.0.1:%d\n" % listener.getsockname()[1]
        sys.stdout.buffer.write(line)
        sys.stdout.buffer.flush()
    code = child.wait()
    os._exit(code if code >= 0 else 128 - code)


# junit-pass -----------------------------------------------------------------

def junit_pass(args):
    code = subprocess.run([REAL] + args).returncode
    report = option(args, "--junit")
    if report and os.path.exists(report):
        xml = open(report).read()
        dropped = re.sub(r"\s*<failure\b[^>]*?(/>|>.*?</failure>)", "", xml, count=1, flags=re.S)
        if dropped != xml:
            dropped = re.sub(r'failures="(\d+)"', lambda m: f'failures="{int(m.group(1)) - 1}"', dropped)
        open(report, "w").write(dropped)
    sys.exit(code)


# header-ahead ---------------------------------------------------------------

HEADER = re.compile(rb"(?m)(?:^|(?<=\x1b\[2J))(\d\d):(\d\d):(\d\d)(?=  -?\d+\.\d+, -?\d+\.\d+  )")


def ahead(m):
    h, mi, s = (int(x) for x in m.groups())
    t = h * 3600 + mi * 60 + s + 60
    return b"%02d:%02d:%02d" % (t // 3600 % 24, t // 60 % 60, t % 60)


def header_ahead(args):
    size = fcntl.ioctl(1, termios.TIOCGWINSZ, b"\0" * 8)
    pid, fd = pty.fork()
    if pid == 0:
        fcntl.ioctl(0, termios.TIOCSWINSZ, size)
        real(args)
    carry = b""
    while True:
        try:
            select.select([fd], [], [])
            chunk = os.read(fd, 65536)
        except OSError:
            chunk = b""
        if not chunk:
            break
        data = carry + chunk
        cut = data.rfind(b"\n") + 1
        carry = data[cut:]
        out = HEADER.sub(ahead, data[:cut])
        while out:
            out = out[os.write(1, out):]
    while carry:
        carry = carry[os.write(1, carry):]
    _, status = os.waitpid(pid, 0)
    sys.exit(os.waitstatus_to_exitcode(status) & 0xFF)


# cluster-swap ---------------------------------------------------------------

def cluster_swap(args):
    r = subprocess.run([REAL] + args, stdout=subprocess.PIPE)
    out = []
    for line in r.stdout.decode().splitlines():
        if line.startswith('{"type":"map"'):
            event = json.loads(line)
            by_group = {}
            for c in event.get("clusters", []):
                by_group.setdefault(c["group"], []).append(c)
            for clusters in by_group.values():
                if len(clusters) >= 2:
                    clusters[0]["members"], clusters[1]["members"] = clusters[1]["members"], clusters[0]["members"]
            line = json.dumps(event, separators=(",", ":"))
        out.append(line + "\n")
    sys.stdout.write("".join(out))
    sys.exit(r.returncode)


def main():
    args = sys.argv[1:]
    command = args[0] if args else ""
    if KIND == "tpv-shift" and command == "serve":
        serve_shifted(args)
    elif KIND == "junit-pass" and command == "batch" and "--junit" in args:
        junit_pass(args)
    elif KIND == "header-ahead" and command == "replay" and "--realtime" in args and os.isatty(1):
        header_ahead(args)
    elif KIND == "cluster-swap" and command == "replay" and "--cluster" in args:
        cluster_swap(args)
    real(args)


if __name__ == "__main__":
    main()
