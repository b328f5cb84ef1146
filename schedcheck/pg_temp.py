"""A throwaway PostgreSQL cluster for tests and benchmarks: ``initdb`` in a temporary
directory, ``pg_ctl start`` bound to 127.0.0.1 on a free port (and a Unix socket inside the
directory, nothing in /var/run), stopped and deleted afterwards. Debian's ``postgresql``
package provides the programs (``scripts/setup`` installs it); run as root, the server runs
as the ``postgres`` user (PostgreSQL refuses to run as root).

    with TempCluster() as url:        # postgresql://postgres@127.0.0.1:PORT/postgres
        ...

``restart()`` stops the server at once, as a crash leaves it (no shutdown checkpoint), and
starts it again on the same port: it recovers from its WAL before it accepts connections.

:class:`ClusterUnavailable` says why a server could not start (the tests skip with it).
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from types import TracebackType

__all__ = ["ClusterUnavailable", "TempCluster", "find_bin"]


class ClusterUnavailable(RuntimeError):
    """No temporary PostgreSQL server could be started (the message says why and what to do)."""


def find_bin(name: str) -> str | None:
    """``name`` on PATH, else in the newest /usr/lib/postgresql/*/bin."""
    found = shutil.which(name)
    if found:
        return found
    for d in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        path = os.path.join(d, name)
        if os.access(path, os.X_OK):
            return path
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class TempCluster:
    """A private PostgreSQL server; the context value is its URL. ``fsync=False`` (tests) trades
    crash safety of the throwaway cluster for speed; benchmarks keep the default (on)."""

    def __init__(self, *, fsync: bool = True, max_connections: int = 100) -> None:
        self.fsync = fsync
        self.max_connections = max_connections
        self.dir: str | None = None
        self.port = 0
        self._prefix: list[str] = []
        self._opts = ""
        self.url = ""  #: the server's URL once entered

    def _run(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*self._prefix, *args], capture_output=True, text=True,
                              timeout=120, check=False)

    def __enter__(self) -> str:
        initdb, pg_ctl = find_bin("initdb"), find_bin("pg_ctl")
        if initdb is None or pg_ctl is None:
            raise ClusterUnavailable("PostgreSQL's initdb/pg_ctl are not installed: run "
                                     "scripts/setup (it installs Debian's postgresql)")
        self.dir = tempfile.mkdtemp(prefix="schedcheck-pg-")
        if os.geteuid() == 0:  # initdb refuses root: run the server as postgres
            runuser = shutil.which("runuser")
            if runuser is None:
                raise ClusterUnavailable("running as root without runuser: cannot start "
                                         "PostgreSQL as the postgres user")
            try:
                shutil.chown(self.dir, user="postgres")
            except (LookupError, PermissionError) as exc:
                raise ClusterUnavailable(f"no postgres user to run the server as ({exc}); "
                                         "install Debian's postgresql package") from exc
            self._prefix = [runuser, "-u", "postgres", "--"]
        data = os.path.join(self.dir, "data")
        init = self._run(initdb, "-D", data, "-A", "trust", "-U", "postgres", "--no-sync",
                         "-E", "UTF8")
        if init.returncode:
            self._cleanup()
            raise ClusterUnavailable(f"initdb failed: {init.stderr.strip()[-400:]}")
        self.port = _free_port()
        self._opts = (f"-h 127.0.0.1 -p {self.port} -k {self.dir} -c max_connections="
                      f"{self.max_connections}" + ("" if self.fsync else " -F"))
        try:
            self._start(pg_ctl)
        except ClusterUnavailable:
            self._cleanup()
            raise
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"
        return self.url

    def _start(self, pg_ctl: str) -> None:
        assert self.dir is not None
        started = self._run(pg_ctl, "-D", os.path.join(self.dir, "data"), "-o", self._opts,
                            "-l", os.path.join(self.dir, "log"), "-w", "-t", "60", "start")
        if started.returncode:
            log = ""
            try:
                with open(os.path.join(self.dir, "log")) as fh:
                    log = fh.read()[-400:]
            except OSError:
                pass
            raise ClusterUnavailable(f"pg_ctl start failed: {started.stderr.strip()[-300:]} "
                                     f"{log}")

    def restart(self) -> None:
        """Stop the server at once -- every server process ends where it is, no shutdown
        checkpoint, as after a crash -- and start it again on the same port; returns once it
        has recovered from its WAL and accepts connections."""
        pg_ctl = find_bin("pg_ctl")
        if self.dir is None or pg_ctl is None:
            raise RuntimeError("restart() of a cluster that is not running: enter it first")
        self._run(pg_ctl, "-D", os.path.join(self.dir, "data"), "-m", "immediate", "-w",
                  "stop")
        self._start(pg_ctl)

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        pg_ctl = find_bin("pg_ctl")
        if self.dir is not None and pg_ctl is not None:
            self._run(pg_ctl, "-D", os.path.join(self.dir, "data"), "-m", "immediate", "-w",
                      "stop")
        self._cleanup()

    def _cleanup(self) -> None:
        if self.dir is not None:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None
