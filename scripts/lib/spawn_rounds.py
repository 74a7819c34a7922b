"""Time whole processes: each run a bare posix_spawn and wait4, in rounds
that run every program once in a shuffled order, so that whatever else the
machine is doing weighs on all alike. Used by scripts/bench-startup and
scripts/bench-sandbox.

subprocess.run costs a few hundred microseconds of its own per run, which,
added to every program, pulls ratios towards 1 (2.7x where a bare spawn
measures 2.9-3.0x); so each run is a bare posix_spawn and wait4.
"""
import os
import random
import statistics
import subprocess
import sys
import time


def rounds(progs, runs, env, cwd, script):
    """Runs every argv of progs (name: argv) runs times, returns the wall
    and CPU (user+system) milliseconds of each run by name, and the load
    average before and after. A run that fails stops the script."""
    for argv in progs.values():  # page the binaries in, and check they work
        subprocess.run(argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL, check=True)
    os.chdir(cwd)
    devnull = os.open(os.devnull, os.O_WRONLY)
    load0 = open("/proc/loadavg").read().split()[:3]
    wall = {name: [] for name in progs}
    busy = {name: [] for name in progs}
    order = list(progs)
    for _ in range(runs):
        random.shuffle(order)
        for name in order:
            argv = progs[name]
            t = time.perf_counter_ns()
            pid = os.posix_spawn(argv[0], argv, env, file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1)])
            _, status, ru = os.wait4(pid, 0)
            wall[name].append((time.perf_counter_ns() - t) / 1e6)
            if os.waitstatus_to_exitcode(status) != 0:
                sys.exit(f"{script}: {name} failed")
            busy[name].append((ru.ru_utime + ru.ru_stime) * 1e3)
    load1 = open("/proc/loadavg").read().split()[:3]
    return wall, busy, load0, load1


def paired(wall, name, base, lo=0, hi=None):
    """The median of name's wall time over base's within each round."""
    return statistics.median(a / b for a, b in zip(wall[name][lo:hi], wall[base][lo:hi]))
