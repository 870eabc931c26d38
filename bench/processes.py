"""One command in a child process of its own, timed from outside: wall seconds, CPU seconds
and peak RSS from the child's ``getrusage`` (``os.wait4``: a forked grandchild that the child
waits for is counted too), exit code, its output, and the load average before and after."""
from __future__ import annotations

import os
import subprocess
import tempfile
import time
from pathlib import Path


def run_child(cmd: list[str], cwd: Path | None = None) -> dict:
    """Run ``cmd`` (in ``cwd``) and return ``wall_s``, ``cpu_s``, ``peak_rss_mb``,
    ``exit_code``, ``stdout``, ``stderr``, ``load_before``, ``load_after``."""
    load = os.getloadavg()[0]
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=out, stderr=err, text=True, cwd=cwd)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        out.seek(0)
        err.seek(0)
        text, errors = out.read(), err.read()
    return {"wall_s": wall, "cpu_s": ru.ru_utime + ru.ru_stime,
            "peak_rss_mb": ru.ru_maxrss / 1024, "exit_code": os.waitstatus_to_exitcode(status),
            "stdout": text, "stderr": errors, "load_before": load,
            "load_after": os.getloadavg()[0]}
