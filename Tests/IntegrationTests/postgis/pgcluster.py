"""A throwaway PostgreSQL cluster with PostGIS on a loopback port, run as a
non-root user (the `postgres` account Debian's packages create, when this
runs as root), for the PostGIS checks and benchmarks. Password logins
(scram-sha-256) over TCP; the admin logs in over the cluster's own socket.

    with Cluster() as pg:
        pg.sql("CREATE TABLE ...")
        pg.uri("reader", "places")  # postgresql://reader@127.0.0.1:PORT/places
"""
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    ADMIN = "stroll_admin"

    def __init__(self):
        found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
        assert found, "PostgreSQL is not installed (apt-get install postgresql-15-postgis-3)"
        self.bin = os.path.dirname(found[-1])
        self.port = free_port()
        self.root = os.getuid() == 0
        self.owner = "postgres" if self.root else pwd.getpwuid(os.getuid()).pw_name

    def _as_owner(self, args, **kw):
        if self.root:
            args = ["runuser", "-u", self.owner, "--"] + args
        return subprocess.run(args, check=True, capture_output=True, text=True, **kw)

    def __enter__(self):
        self.dir = tempfile.mkdtemp(prefix="stroll-pg-")
        os.chmod(self.dir, 0o755)
        self.data = os.path.join(self.dir, "data")
        self.socket = os.path.join(self.dir, "socket")
        os.mkdir(self.socket)
        if self.root:
            shutil.chown(self.dir, self.owner)
            shutil.chown(self.socket, self.owner)
        self._as_owner([f"{self.bin}/initdb", "-D", self.data, "-U", self.ADMIN, "--auth-local=trust",
                        "--auth-host=scram-sha-256", "-E", "UTF8", "--locale=C.UTF-8"])
        self._as_owner([f"{self.bin}/pg_ctl", "-D", self.data, "-w", "-l", os.path.join(self.dir, "log"), "-o",
                        f"-p {self.port} -k {self.socket} -c listen_addresses=127.0.0.1 -c fsync=off "
                        f"-c synchronous_commit=off -c full_page_writes=off -c max_parallel_workers_per_gather=0", "start"])
        return self

    def __exit__(self, *exc):
        try:
            self._as_owner([f"{self.bin}/pg_ctl", "-D", self.data, "-m", "immediate", "stop"])
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)

    def psql(self, db, *args, stdin=None):
        """psql as the admin over the socket; returns stdout."""
        r = subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", self.socket, "-p", str(self.port), "-U", self.ADMIN,
                            "-d", db, *args], input=stdin, capture_output=True, text=True)
        assert r.returncode == 0, (args, r.stderr)
        return r.stdout

    def sql(self, db, text):
        return self.psql(db, "-A", "-t", "-c", text)

    def uri(self, user, db, **params):
        query = "&".join(f"{k}={v}" for k, v in params.items())
        return f"postgresql://{user}@127.0.0.1:{self.port}/{db}" + (f"?{query}" if query else "")
