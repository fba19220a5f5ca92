#!/usr/bin/env python3
"""`stroll batch --ray` on a real Ray cluster: a head and two worker nodes on
loopback (127.0.0.1, 127.0.0.2, 127.0.0.3), each started with `ray start`.

1. Every bundled walk and real trace, as a batch on the cluster with one
   worker node, then with two, gives byte-identical outputs (events,
   GeoJSON, SVG) and the same statuses and reasons as `stroll batch --jobs 3`
   on this machine, run on those nodes only; a rerun skips them all.
2. Ctrl-C (SIGINT) mid-batch (96 walks; after 3 are done): exit 130, what
   finished kept, the rest cancelled, no partial file; the rerun finishes the
   rest, identical to the same walks run locally.
3. A worker without the stroll executable: every walk fails with that reason
   after its retries, exit 1, no partial file.
4. An unreachable address (a closed port; a port that never speaks Ray,
   with --ray-connect-timeout 3) is an error, exit 69, with the reason,
   and nothing left behind.
5. Sharded ranking (--shard-places 4) of 1 000 000 places: the merged events
   are byte for byte those of one replay over all places, every update.
6. kill -9 of a worker node's raylet mid-batch: the batch still completes,
   every walk done exactly once, outputs identical (last: it leaves one node).

The comparison of 1. is shown failing first (1b): the workers run, with
--ray-stroll, a stroll that writes one digit of each walk's first ranking
distance wrong in its events; the comparison with the local batch must
name every such walk's events file, and nothing else.

No check depends on how long anything takes: each waits for what it needs
(a count of walks done in status.json, a process's exit) and judges what it
got. Times are printed, never compared. Each wait has a generous limit
(HANG_GUARD) only so that a hang fails the check instead of stalling CI.

usage: check_ray.py STROLL PYTHON   (PYTHON has ray and stroll_ray installed)
"""
import glob
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
STROLL, PYTHON = sys.argv[1], sys.argv[2]
RAY = os.path.join(os.path.dirname(PYTHON), "ray")
# Seconds any one wait may last: a guard against a hang, never a pass condition.
HANG_GUARD = 600
# Quick node-death detection, so a killed raylet is noticed in seconds.
ENV = dict(os.environ, RAY_health_check_period_ms="1000", RAY_health_check_failure_threshold="4",
           RAY_health_check_initial_delay_ms="1000", RAY_USAGE_STATS_ENABLED="0", STROLL_RAY_PYTHON=PYTHON)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ray_start(args):
    r = subprocess.run([RAY, "start", "--disable-usage-stats", *args], capture_output=True, text=True, env=ENV, timeout=HANG_GUARD)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]


def raylets():
    """Raylet processes: {node ip: pid}."""
    found = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmd = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
        except OSError:
            continue
        if cmd and cmd[0].endswith(b"/raylet"):
            ip = next((a.split(b"=", 1)[1].decode() for a in cmd if a.startswith(b"--node_ip_address=")), None)
            if ip:
                found[ip] = int(pid)
    return found


def batch(walks, out, *extra, check=True):
    began = time.time()
    r = subprocess.run([STROLL, "batch", *walks, "--out", out, *extra], capture_output=True, text=True, env=ENV, timeout=HANG_GUARD)
    if check:
        assert r.returncode in (0, 1), r.stdout[-3000:] + r.stderr[-3000:]
    return r, time.time() - began


def outputs(folder):
    """Every output file's bytes, and the statuses without where they ran."""
    files = {}
    for path in sorted(glob.glob(os.path.join(folder, "*"))):
        name = os.path.basename(path)
        if name != "status.json":
            files[name] = open(path, "rb").read()
    status = json.load(open(os.path.join(folder, "status.json")))
    statuses = [(t["trace"], t["status"], t.get("reason"), t.get("outputs")) for t in status["traces"]]
    return files, statuses


# A stroll that gets one thing wrong: the last digit of the first distance of
# the first ranking line of `replay`'s events (its standard output) changed.
WRONG_STROLL = r"""#!/usr/bin/env python3
import re, subprocess, sys
r = subprocess.run([REAL] + sys.argv[1:], stdout=subprocess.PIPE)
out = r.stdout
m = re.search(rb'"type":"ranking".*?"distances":\[-?[0-9.]*?([0-9])[,\]]', out)
if m:
    k = m.start(1)
    out = out[:k] + bytes([0x30 + (out[k] - 0x30 + 1) % 10]) + out[k + 1:]
sys.stdout.buffer.write(out)
sys.exit(r.returncode)
"""


def differing(local_files, ray_files):
    """The output files that differ between two batches (missing on either side included)."""
    names = set(local_files) | set(ray_files)
    return sorted(n for n in names if local_files.get(n) != ray_files.get(n))


def wait_until(folder, ready, what):
    """Waits until the batch's status.json in folder satisfies ready(traces);
    fails if it never does (HANG_GUARD)."""
    deadline = time.monotonic() + HANG_GUARD
    while time.monotonic() < deadline:
        status = os.path.join(folder, "status.json")
        if os.path.exists(status):
            try:
                if ready(json.load(open(status))["traces"]):
                    return
            except ValueError:
                pass
        time.sleep(0.05)
    raise AssertionError(f"{what}: not reached within {HANG_GUARD} s")


def no_partials(folder):
    left = [f for f in os.listdir(folder) if f.startswith(".") and f != ".ray-driver.log"]
    assert not left, f"partial files left in {folder}: {left}"


def main():
    walks = sorted(os.path.join(ROOT, "traces", f) for f in os.listdir(os.path.join(ROOT, "traces")) if f.endswith((".gpx", ".csv")))
    real = os.path.join(ROOT, "Fixtures", "real-traces")
    walks += sorted(os.path.join(d, f) for d, _, files in os.walk(real) for f in files
                    if f.endswith((".gpx", ".csv", ".kml", ".tcx", ".geojson", ".nmea", ".plt")))
    tmp = tempfile.mkdtemp(prefix="stroll-ray-check-")
    port = free_port()
    address = f"127.0.0.1:{port}"
    try:
        t0 = time.time()
        # The head runs no replays (0 CPUs): the worker nodes do.
        ray_start(["--head", "--node-ip-address", "127.0.0.1", "--port", str(port), "--num-cpus", "0",
                   "--include-dashboard=false", "--object-store-memory", str(400 << 20), "--temp-dir", os.path.join(tmp, "ray")])
        ray_start(["--address", address, "--node-ip-address", "127.0.0.2", "--num-cpus", "1", "--object-store-memory", str(400 << 20)])
        print(f"ray: head and one worker node up in {time.time() - t0:.0f} s")

        # 1. The same outputs as the local batch, with one worker node, then two; a rerun skips every walk.
        r_local, _ = batch(walks, os.path.join(tmp, "local"), "--jobs", "3")
        local_files, local_status = outputs(os.path.join(tmp, "local"))
        for nodes_up in (1, 2):
            if nodes_up == 2:
                ray_start(["--address", address, "--node-ip-address", "127.0.0.3", "--num-cpus", "1", "--object-store-memory", str(400 << 20)])
            folder = os.path.join(tmp, f"on-ray-{nodes_up}")
            r_ray, took = batch(walks, folder, "--ray", address)
            assert "on the Ray cluster at" in r_ray.stdout and f"{nodes_up + 1} nodes, {nodes_up} CPUs" in r_ray.stdout, r_ray.stdout[:500]
            ray_files, ray_status = outputs(folder)
            assert local_status == ray_status, (local_status, ray_status)
            assert local_files.keys() == ray_files.keys(), set(local_files) ^ set(ray_files)
            different = differing(local_files, ray_files)
            assert not different, different
            assert r_local.returncode == r_ray.returncode
            nodes = {t.get("node") for t in json.load(open(os.path.join(folder, "status.json")))["traces"]}
            workers = {"127.0.0.2", "127.0.0.3"} if nodes_up == 2 else {"127.0.0.2"}
            assert nodes <= workers and len(nodes) == nodes_up, nodes
            no_partials(folder)
            done = sum(1 for s in ray_status if s[1] == "done")
            print(f"ray: {len(walks)} walks on {nodes_up} worker node{'s' if nodes_up > 1 else ''} ({done} done, {len(walks) - done} failed as locally), "
                  f"{len(ray_files)} output files byte-identical to the local batch; ran on {sorted(nodes)} ({took:.1f} s)")
        # 1b. The same comparison against workers that write a wrong digit: it names each walk so changed.
        wrong = os.path.join(tmp, "wrong-stroll")
        with open(wrong, "w") as f:
            f.write(WRONG_STROLL.replace("REAL", repr(os.path.abspath(STROLL))))
        os.chmod(wrong, 0o755)
        chosen = [w for w in walks if "traces" + os.sep in w][:3]
        folder = os.path.join(tmp, "on-ray-wrong")
        r_wrong, _ = batch(chosen, folder, "--ray", address, "--ray-stroll", wrong)
        wrong_files, _ = outputs(folder)
        # The first walks of the list: their outputs have the names the local batch gave them.
        assert len(wrong_files) == 3 * len(chosen) and set(wrong_files) <= set(local_files), sorted(wrong_files)
        expected = sorted(n for n in wrong_files if n.endswith(".jsonl"))
        found = differing({n: local_files[n] for n in wrong_files}, wrong_files)
        assert len(expected) == len(chosen) and found == expected, (found, expected)
        print(f"ray: shown failing: workers writing one wrong digit give {len(found)} differing events files, each named: {found}")

        folder = os.path.join(tmp, "on-ray-2")
        mtimes = {f: os.stat(os.path.join(folder, f)).st_mtime_ns for f in ray_files}
        r, _ = batch(walks, folder, "--ray", address)
        assert r.stdout.count("(already done)") == done, r.stdout[-2000:]
        assert all(os.stat(os.path.join(folder, f)).st_mtime_ns == m for f, m in mtimes.items())
        print(f"ray: the rerun skipped all {done} walks done")

        # The walks of the interruptions (2. and 6.): the list three times over, at --rate 5, and their outputs here.
        many = walks * 3
        copies = []
        for k, w in enumerate(many):
            local = os.path.join(tmp, "many", f"{k:03d}-{os.path.basename(w)}")
            os.makedirs(os.path.dirname(local), exist_ok=True)
            shutil.copyfile(w, local)
            copies.append(local)
        batch(copies, os.path.join(tmp, "local-many"), "--jobs", "2", "--rate", "5")
        reference = outputs(os.path.join(tmp, "local-many"))

        # 2. Ctrl-C mid-batch, then the rerun.
        slow = os.path.join(tmp, "interrupted")
        p = subprocess.Popen([STROLL, "batch", *copies, "--out", slow, "--ray", address, "--rate", "5"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
        wait_until(slow, lambda traces: sum(t["status"] == "done" for t in traces) >= 3, "3 walks done")
        p.send_signal(signal.SIGINT)
        out, _ = p.communicate(timeout=HANG_GUARD)
        assert p.returncode == 130, (p.returncode, out[-2000:])
        traces = json.load(open(os.path.join(slow, "status.json")))["traces"]
        states = {t["status"] for t in traces}
        assert "cancelled" in states and "done" in states and "running" not in states, states
        no_partials(slow)
        kept = sum(t["status"] == "done" for t in traces)
        r, _ = batch(copies, slow, "--ray", address, "--rate", "5")
        assert r.stdout.count("(already done)") == kept
        assert outputs(slow) == reference
        print(f"ray: Ctrl-C kept {kept} walks done and cancelled the rest (exit 130); the rerun finished them, identical")

        # 3. No stroll on the workers.
        r, _ = batch(walks[:2], os.path.join(tmp, "missing"), "--ray", address, "--ray-stroll", "/nonexistent/stroll", "--ray-retries", "1")
        assert r.returncode == 1, r.stdout[-2000:]
        traces = json.load(open(os.path.join(tmp, "missing", "status.json")))["traces"]
        assert all(t["status"] == "failed" and "no stroll executable at /nonexistent/stroll" in t["reason"] and "2 attempts" in t["reason"]
                   for t in traces), traces
        no_partials(os.path.join(tmp, "missing"))
        print(f"ray: without stroll on the workers every walk fails with: {traces[0]['reason']}")

        # 4. Unreachable addresses: a closed port; a port that accepts and never speaks Ray (which
        # --ray-connect-timeout gives up on, saying so).
        silent = socket.socket()
        silent.bind(("127.0.0.1", 0))
        silent.listen(16)
        for bad, extra, reason in [(f"127.0.0.1:{free_port()}", [], "Connection refused"),
                                   (f"127.0.0.1:{silent.getsockname()[1]}", ["--ray-connect-timeout", "3"], "not connected within 3 s")]:
            r, took = batch(walks[:1], os.path.join(tmp, "unreachable"), "--ray", bad, *extra, check=False)
            assert r.returncode == 69 and f"--ray {bad}" in r.stderr and reason in r.stderr, (r.returncode, r.stderr, took)
            assert not os.path.exists(os.path.join(tmp, "unreachable")), "nothing left behind"
            print(f"ray: --ray {bad} {' '.join(extra)}: exit 69 in {took:.1f} s: {r.stderr.strip()}")
        silent.close()

        # 5. Sharded ranking of a million places.
        shards(address, tmp)

        # 6. A worker node's raylet killed mid-batch (last: the cluster has one worker node after it).
        killed_dir = os.path.join(tmp, "killed")
        p = subprocess.Popen([STROLL, "batch", *copies, "--out", killed_dir, "--ray", address, "--rate", "5", "--jobs", "4"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
        wait_until(killed_dir, lambda traces: sum(t["status"] == "done" for t in traces) >= 4
                   and any(t.get("node") == "127.0.0.3" for t in traces), "4 walks done, one of them on 127.0.0.3")
        victim = raylets().get("127.0.0.3")
        assert victim, raylets()
        os.kill(victim, signal.SIGKILL)
        out, err = p.communicate(timeout=HANG_GUARD)
        traces = json.load(open(os.path.join(killed_dir, "status.json")))["traces"]
        assert [t["trace"] for t in traces] == copies, "every walk once, in order"
        assert outputs(killed_dir) == reference, "the same outputs as the local batch"
        no_partials(killed_dir)
        after = sum(1 for t in traces if t.get("node") == "127.0.0.2")
        print(f"ray: raylet of 127.0.0.3 killed (kill -9) mid-batch: all {len(copies)} walks completed once each, "
              f"identical outputs; {after} ran on 127.0.0.2")
    finally:
        stop(tmp)
        shutil.rmtree(tmp, ignore_errors=True)


def stop(tmp):
    """Stops this cluster's processes only (each names the session folder under tmp), not another Ray on the machine."""
    for _ in range(50):
        mine = []
        for pid in os.listdir("/proc"):
            if pid.isdigit() and int(pid) != os.getpid():
                try:
                    if tmp.encode() in open(f"/proc/{pid}/cmdline", "rb").read():
                        mine.append(int(pid))
                except OSError:
                    pass
        if not mine:
            return
        for pid in mine:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.2)


def shards(address, tmp):
    """1 000 000 places (with ties at the same spot broken by name, then id) in two
    groups, 4 shards on the two worker nodes, merged: byte for byte the events of
    one `stroll replay` over all places, every update of the walk."""
    import math
    import random
    random.seed(7)
    places = os.path.join(tmp, "million.csv")
    lat0, lon0 = 53.4055, -2.9660
    dlat, dlon = 6000 / 111_250, 6000 / (111_320 * math.cos(math.radians(lat0)))
    with open(places, "w") as f:
        f.write("id,name,latitude,longitude,group\n")
        i = 0
        while i < 1_000_000:
            lat, lon = lat0 + (random.random() - 0.5) * dlat, lon0 + (random.random() - 0.5) * dlon
            name, group = f"Place {random.randrange(5000)}", ("cafes" if i % 2 == 0 else "theatres")
            f.write(f"p{i},{name},{lat:.7f},{lon:.7f},{group}\n")
            i += 1
            if i % 1000 == 0 and i < 1_000_000:
                f.write(f"p{i},{name}!,{lat:.7f},{lon:.7f},{group}\n")
                f.write(f"p{i + 1},{name},{lat:.7f},{lon:.7f},{group}\n")
                i += 2
    walk = os.path.join(ROOT, "traces", "lime-street-to-campus.gpx")
    options = ["--places", places, "--distance-filter", "200", "--follow"]
    began = time.time()
    single = subprocess.run([STROLL, "replay", walk, "--format", "jsonl", *options], capture_output=True, env=ENV, timeout=HANG_GUARD)
    assert single.returncode == 0, single.stderr[-2000:]
    alone = time.time() - began
    out = os.path.join(tmp, "sharded")
    r, took = batch([walk], out, "--ray", address, "--shard-places", "4", "--jobs", "1", *options)
    assert r.returncode == 0, r.stdout[-2000:]
    merged = open(os.path.join(out, "lime-street-to-campus.jsonl"), "rb").read()
    lines = single.stdout.decode().splitlines()
    rankings = [json.loads(l) for l in lines if l.startswith('{"type":"ranking"')]
    assert merged == single.stdout, "the merged events differ from the single replay's"
    status = json.load(open(os.path.join(out, "status.json")))["traces"][0]
    # Where the shards ran is Ray's choice (a task lost to a busy node is retried
    # on the other); what must hold is that only worker nodes ran them.
    nodes = status["node"].split(", ")
    assert nodes and set(nodes) <= {"127.0.0.2", "127.0.0.3"}, status
    assert not os.path.exists(os.path.join(out, ".shards")), "the shard files are removed"
    no_partials(out)
    rows = sum(len(x["order"]) for x in rankings)
    print(f"ray: 1 000 000 places in 4 shards on {status['node']}: {len(rankings)} rankings ({rows} rows, "
          f"{len(merged) / 1e6:.0f} MB of events) byte-identical to one replay over all places; "
          f"sharded {took:.1f} s, one replay {alone:.1f} s")


if __name__ == "__main__":
    main()
