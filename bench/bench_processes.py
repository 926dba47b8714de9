"""pytest plugin loaded with ``-p bench_processes`` by bench_xdist.py: each pytest process (a single run, an xdist
controller, each worker) appends one JSON line to $BENCH_PROCESSES_FILE at exit: its role and its CPU seconds
(user + sys) at the end of collection and at exit, and how many tests it ran."""

import json
import os
import resource

_role = "single"
_collected_cpu = None
_ran = 0


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def pytest_configure(config):
    global _role
    worker = getattr(config, "workerinput", {}).get("workerid")
    _role = worker or ("controller" if config.getoption("numprocesses", None) else "single")


def pytest_collection_finish(session):
    global _collected_cpu
    _collected_cpu = _cpu()


def pytest_runtest_logfinish(nodeid, location):
    global _ran
    _ran += 1


def pytest_unconfigure(config):
    path = os.environ.get("BENCH_PROCESSES_FILE")
    if path:
        with open(path, "a") as fh:
            fh.write(json.dumps({"role": _role, "collected_cpu": _collected_cpu, "cpu": _cpu(), "ran": _ran}) + "\n")
