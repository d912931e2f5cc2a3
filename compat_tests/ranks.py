"""What the tests that start several processes share: a free port, and ranks run under a deadline.

A rank that hangs (a lost rendezvous, a collective waiting on a peer that is gone: the default process-group
timeout is torch's 30 minutes) must fail its test, not hold the whole suite until CI's time limit. The tests
that open ports are marked ``opens_ports``: conftest.py runs them one at a time across pytest-xdist's
workers, so the port one test has just chosen is not taken by another test's ranks meanwhile."""
import socket
import time

import pytest

DEADLINE = 300   # seconds for a group of ranks: the slowest (DDP, both libraries at once) takes ~15 s here


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_ranks(lib, fn, args, nprocs=2, start_method="spawn"):
    """``lib.multiprocessing.start_processes`` without joining: the context to hand to :func:`wait_ranks`."""
    return lib.multiprocessing.start_processes(fn, args=args, nprocs=nprocs, join=False, start_method=start_method)


def wait_ranks(*contexts, deadline=DEADLINE):
    """Joins every context (a failed rank raises as ``join`` does); past the deadline, kills them all and fails."""
    end = time.monotonic() + deadline
    for ctx in contexts:
        while not ctx.join(timeout=1.0):
            if time.monotonic() > end:
                alive = [p.pid for c in contexts for p in c.processes if p.is_alive()]
                for c in contexts:
                    for p in c.processes:
                        p.kill()
                pytest.fail(f"ranks still running after {deadline} s (pids {alive}): killed")


def run_ranks(lib, fn, args, nprocs=2, start_method="spawn", deadline=DEADLINE):
    wait_ranks(start_ranks(lib, fn, args, nprocs, start_method), deadline=deadline)
