"""The Ray executor behind `stroll batch --ray ADDRESS`.

`stroll batch` keeps the queue, the status file, resume, Ctrl-C and the
reports; this driver only runs each replay somewhere on a Ray cluster. It
speaks JSON lines: requests on standard input, answers on standard output
(anything Ray itself prints goes to standard error).

    <- {"event": "ready", "nodes": N, "cpus": C, "ray": VERSION}
       or {"event": "error", "message": ...} and exit 2
    -> {"op": "run", "id": K, "args": [...], "inputs": [I...], "outputs": [I...],
        "stdout": PATH, "stderr": PATH, "timeout": SECONDS or null}
    <- {"event": "exit", "id": K, "status": S, "signal": N or null,
        "timedOut": bool, "node": IP}
       or {"event": "failed", "id": K, "reason": ...}
    -> {"op": "cancel", "id": K}
    (end of input: every task still running is cancelled and the driver exits)

`args` is the `stroll` command line without the executable; `inputs` and
`outputs` are the indices in it of file paths: each input file is read here
and put in Ray's object store once (the same place file for a thousand walks
is one object, fetched once per node), copied into a temporary folder on the
worker, and its path rewritten; each output is written there and sent back
through the object store. On success this driver writes the replay's standard
output and error to the files `stroll batch` named and every output file
atomically (a temporary file, then a rename), so the output folder never
holds part of a file. Nothing needs a shared file system: that is what a
cluster on Kubernetes or in the cloud lacks, and traces and place files are
small beside what the object store is built to move.

Retries: a task lost with its node or worker (a raylet killed, a node gone)
is retried by Ray up to --retries times, and so is a worker without a usable
`stroll` binary (the next attempt may land on a node that has one); after
that the walk fails with the reason. A replay that runs and exits non-zero
(a malformed trace, a divergence from its golden) is an answer, not a
failure of the cluster: it is not retried.
"""
import argparse
import json
import os
import signal
import socket
import sys
import threading
import time

STROLL_ON_WORKERS_HELP = "the stroll executable on the worker nodes (default: the path stroll batch runs from)"


class StrollUnavailable(Exception):
    """The worker cannot run stroll: no executable at the path, or it cannot be started."""


def _die_with_parent():
    """In the replay's process: be killed when the Ray worker that started it dies."""
    try:
        import ctypes
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except OSError:
        pass


def split_layer(arg):
    """FILE.gpkg#LAYER as the file and "#LAYER"; any other argument and ""."""
    head, sep, layer = arg.rpartition("#")
    if sep and head.lower().endswith(".gpkg"):
        return head, "#" + layer
    return arg, ""


def run_replay(stroll, args, inputs, outputs, timeout):
    """On a worker: one `stroll` run in a temporary folder; its exit, output and files."""
    import subprocess
    import tempfile
    import ray

    node = ray.get_runtime_context().get_node_id()
    if not (os.path.isfile(stroll) and os.access(stroll, os.X_OK)):
        raise StrollUnavailable(f"no stroll executable at {stroll} on node {ray.util.get_node_ip_address()} ({node[:12]}); install it there or name it with --ray-stroll")
    with tempfile.TemporaryDirectory(prefix="stroll-ray-") as tmp:
        argv = list(args)
        for n, (index, ref) in enumerate(inputs):
            path, layer = split_layer(argv[index])
            local = os.path.join(tmp, f"in{n}-{os.path.basename(path)}")
            with open(local, "wb") as f:
                f.write(ray.get(ref[0]))
            argv[index] = local + layer
        written = {}
        for n, index in enumerate(outputs):
            local = os.path.join(tmp, f"out{n}-{os.path.basename(argv[index])}")
            written[index] = local
            argv[index] = local
        try:
            proc = subprocess.run([stroll] + argv, cwd=tmp, stdin=subprocess.DEVNULL, capture_output=True,
                                  timeout=timeout, preexec_fn=_die_with_parent)
        except subprocess.TimeoutExpired as expired:
            return {"status": 137, "signal": signal.SIGKILL, "timedOut": True, "node": node,
                    "stdout": expired.stdout or b"", "stderr": expired.stderr or b"", "files": {}}
        except OSError as error:
            raise StrollUnavailable(f"cannot start {stroll} on node {node[:12]}: {error.strerror}") from None
        files = {}
        for index, local in written.items():
            if os.path.exists(local):
                with open(local, "rb") as f:
                    files[index] = f.read()
        code = proc.returncode
        return {"status": code if code >= 0 else 128 - code, "signal": -code if code < 0 else None, "timedOut": False,
                "node": node, "stdout": proc.stdout, "stderr": proc.stderr, "files": files}


def write_atomically(path, data):
    directory = os.path.dirname(os.path.abspath(path))
    temporary = os.path.join(directory, f".{os.path.basename(path)}.ray-{os.getpid()}")
    with open(temporary, "wb") as f:
        f.write(data)
    os.replace(temporary, path)


def reachable(address, timeout):
    """None when the address answers a TCP connection, else why not (before Ray is asked, so nothing hangs)."""
    if address in ("auto", "local"):
        return None
    target = address[len("ray://"):] if address.startswith("ray://") else address
    host, sep, port = target.rpartition(":")
    if not sep or not port.isdigit():
        return f"--ray {address}: give HOST:PORT (a node of the cluster, port 6379 by default) or ray://HOST:PORT (Ray Client)"
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout):
            return None
    except socket.timeout:
        return f"no Ray cluster at {address}: no answer within {timeout:g} s"
    except OSError as error:
        return f"no Ray cluster at {address}: {error.strerror or error}"


class Driver:
    def __init__(self, ray, send, stroll, retries):
        self.ray = ray
        self.send = send
        self.stroll = stroll
        self.retries = retries
        self.lock = threading.Lock()
        self.running = {}  # ObjectRef -> request
        self.attempts = {}
        self.objects = {}  # (path, size, mtime) -> ObjectRef
        self.remote = ray.remote(num_cpus=1)(run_replay)
        self.closed = False
        self.addresses = {}

    def node(self, node_id):
        """A node's address as the cluster knows it (its IP), from its id."""
        if node_id not in self.addresses:
            self.addresses = {n["NodeID"]: n["NodeManagerAddress"] for n in self.ray.nodes()}
        return self.addresses.get(node_id, node_id[:12])

    def put(self, path):
        stat = os.stat(path)
        key = (os.path.abspath(path), stat.st_size, stat.st_mtime_ns)
        if key not in self.objects:
            with open(path, "rb") as f:
                self.objects[key] = self.ray.put(f.read())
        return self.objects[key]

    def submit(self, request):
        args = request["args"]
        try:
            inputs = [(i, [self.put(split_layer(args[i])[0])]) for i in request.get("inputs", [])]
        except OSError as error:
            self.send({"event": "failed", "id": request["id"], "reason": f"cannot read {error.filename}: {error.strerror}"})
            return
        ref = self.remote.options(max_retries=self.retries, retry_exceptions=[StrollUnavailable],
                                  name=f"stroll replay {os.path.basename(args[1]) if len(args) > 1 else ''}").remote(
            self.stroll, args, inputs, request.get("outputs", []), request.get("timeout"))
        with self.lock:
            self.running[ref] = request

    def cancel(self, ident):
        with self.lock:
            refs = [ref for ref, request in self.running.items() if request["id"] == ident]
            for ref in refs:
                del self.running[ref]
        for ref in refs:
            self.ray.cancel(ref, force=True)

    def cancel_all(self):
        with self.lock:
            refs = list(self.running)
            self.running.clear()
            self.closed = True
        for ref in refs:
            self.ray.cancel(ref, force=True)

    def wait_loop(self):
        while True:
            with self.lock:
                refs = list(self.running)
                if self.closed and not refs:
                    return
            if not refs:
                time.sleep(0.05)
                continue
            done, _ = self.ray.wait(refs, num_returns=1, timeout=0.5)
            for ref in done:
                with self.lock:
                    request = self.running.pop(ref, None)
                if request is not None:
                    self.finish(ref, request)

    def finish(self, ref, request):
        ident = request["id"]
        try:
            result = self.ray.get(ref)
        except Exception as error:  # a task that failed for good, after its retries
            self.send({"event": "failed", "id": ident, "reason": self.reason(error)})
            return
        try:
            with open(request["stdout"], "wb") as f:
                f.write(result["stdout"])
            with open(request["stderr"], "wb") as f:
                f.write(result["stderr"])
            for index, data in result["files"].items():
                write_atomically(request["args"][index], data)
        except OSError as error:
            self.send({"event": "failed", "id": ident, "reason": f"cannot write {error.filename}: {error.strerror}"})
            return
        self.send({"event": "exit", "id": ident, "status": result["status"], "signal": result["signal"],
                   "timedOut": result["timedOut"], "node": self.node(result["node"])})

    def reason(self, error):
        cause = getattr(error, "cause", None)
        if isinstance(cause, StrollUnavailable):
            return f"{cause} (after {self.retries + 1} attempts)"
        name = type(error).__name__
        text = str(error).strip().splitlines()
        first = next((line for line in text if line.strip()), name)
        return f"on the Ray cluster, after {self.retries + 1} attempts: {name}: {first}"[:500]


def main(argv=None):
    # stroll batch owns Ctrl-C: it cancels through standard input.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parser = argparse.ArgumentParser(prog="stroll-ray-driver", description=__doc__.split("\n\n")[0])
    parser.add_argument("--address", required=True, help="the Ray cluster: HOST:PORT, ray://HOST:PORT or auto")
    parser.add_argument("--stroll", required=True, help=STROLL_ON_WORKERS_HELP)
    parser.add_argument("--retries", type=int, default=2, help="retries of a task lost with its node or worker")
    parser.add_argument("--connect-timeout", type=float, default=10, help="seconds to reach the cluster")
    options = parser.parse_args(argv)

    # Answers go to the real standard output; anything else printed goes to standard error.
    answers = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    send_lock = threading.Lock()

    def send(message):
        with send_lock:
            answers.write(json.dumps(message) + "\n")

    problem = reachable(options.address, min(options.connect_timeout, 5))
    if problem:
        send({"event": "error", "message": problem})
        return 2
    try:
        import ray
    except ImportError:
        send({"event": "error", "message": f"{sys.executable} has no ray package: pip install ray (or ./python)"})
        return 2
    outcome = {}

    def connect():
        try:
            ray.init(address=options.address, namespace="stroll", log_to_driver=False, logging_level="warning",
                     configure_logging=True)
            outcome["ok"] = True
        except Exception as error:  # noqa: BLE001 (any failure to connect is reported as it is)
            outcome["error"] = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__

    thread = threading.Thread(target=connect, daemon=True)
    thread.start()
    thread.join(options.connect_timeout)
    if not outcome.get("ok"):
        reason = outcome.get("error", f"not connected within {options.connect_timeout:g} s")
        send({"event": "error", "message": f"cannot join the Ray cluster at {options.address}: {reason}"})
        sys.stderr.flush()
        os._exit(2)
    nodes = [n for n in ray.nodes() if n.get("Alive")]
    send({"event": "ready", "nodes": len(nodes), "cpus": int(ray.cluster_resources().get("CPU", 0)), "ray": ray.__version__})

    driver = Driver(ray, send, options.stroll, options.retries)
    waiter = threading.Thread(target=driver.wait_loop, daemon=True)
    waiter.start()
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            request = json.loads(line)
        except ValueError:
            continue
        if request.get("op") == "run":
            driver.submit(request)
        elif request.get("op") == "cancel":
            driver.cancel(request.get("id"))
    driver.cancel_all()
    waiter.join(5)
    ray.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
