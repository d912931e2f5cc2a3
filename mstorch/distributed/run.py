"""``python -m mstorch.distributed.run``: torchrun's command line on msrun's machinery.

``python -m mstorch.distributed.run --nproc-per-node=2 train.py --lr 0.1`` starts what
``msrun --worker_num=2 --local_worker_num=2 ... train.py --lr 0.1`` starts (MindSpore's scheduler and
its workers, their logs under ``--log-dir``, every worker stopped when one fails), and each worker gets
torchrun's environment before the script runs: RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE,
GROUP_RANK, MASTER_ADDR, MASTER_PORT, TORCHELASTIC_RUN_ID. ``init_process_group()`` then joins msrun's
cluster. Elastic membership (``--nnodes=1:4``, ``--max-restarts``) is not supported.
"""
import argparse
import os
import runpy
import signal
import sys
import tempfile

from .elastic.multiprocessing.errors import ChildFailedError, ProcessFailure

__all__ = ["main", "run", "parse_args", "get_args_parser"]

# what msrun runs in each process: its scheduler process serves MindSpore's cluster without importing
# mstorch; a worker sets torchrun's environment and runs the script (``_worker``)
_WORKER_CODE = ("import os, sys\n"
                "if os.environ.get('MS_ROLE') == 'MS_SCHED':\n"
                "    from mindspore import communication\n"
                "    communication.init()\n"
                "    sys.exit(0)\n"
                "from mstorch.distributed.run import _worker\n"
                "sys.exit(_worker(sys.argv[1:]))\n")


def get_args_parser():
    """torchrun's arguments (both spellings: ``--nproc-per-node`` and ``--nproc_per_node``)."""
    p = argparse.ArgumentParser(prog="torchrun", description="mstorch's torchrun on msrun")

    def opt(name, **kw):
        p.add_argument(f"--{name}", f"--{name.replace('-', '_')}", **kw)
    opt("nnodes", default="1", type=str)
    opt("nproc-per-node", default="1", type=str)
    opt("node-rank", default=0, type=int)
    opt("master-addr", default="127.0.0.1", type=str)
    opt("master-port", default=29500, type=int)
    opt("rdzv-backend", default="static", type=str)
    opt("rdzv-endpoint", default="", type=str)
    opt("rdzv-id", default="none", type=str)
    opt("rdzv-conf", default="", type=str)
    opt("max-restarts", default=0, type=int)
    opt("monitor-interval", default=0.1, type=float)
    opt("log-dir", default=None, type=str)
    p.add_argument("--standalone", action="store_true")
    p.add_argument("-m", "--module", action="store_true", help="run the script as a module, as python -m")
    p.add_argument("--no-python", "--no_python", action="store_true")
    p.add_argument("--redirects", "-r", default="0", type=str)
    p.add_argument("--tee", "-t", default="0", type=str)
    p.add_argument("training_script", type=str)
    p.add_argument("training_script_args", nargs=argparse.REMAINDER)
    return p


def parse_args(args=None):
    return get_args_parser().parse_args(args)


def _nproc(value):
    if value in ("cpu", "auto"):
        return os.cpu_count() or 1
    if value in ("gpu", "xpu"):
        raise ValueError(f"mstorch's torchrun: --nproc-per-node={value} needs a device count; give a number")
    return int(value)


def _nnodes(value):
    if ":" in value:
        lo, hi = value.split(":", 1)
        if lo != hi:
            raise ValueError(f"mstorch's torchrun: elastic --nnodes={value} is not supported (msrun starts a fixed "
                             "number of workers); give one number")
        value = lo
    return int(value)


def msrun_argv(args):
    """msrun's command line for torchrun's ``args``."""
    from .store import free_port
    if args.max_restarts:
        raise ValueError("mstorch's torchrun: --max-restarts is not supported (msrun does not restart workers)")
    nproc, nnodes = _nproc(args.nproc_per_node), _nnodes(args.nnodes)
    addr, port = args.master_addr, args.master_port
    if args.rdzv_endpoint:
        host, _, p = args.rdzv_endpoint.rpartition(":")
        addr, port = (host or addr), int(p or port)
    if args.standalone:
        nnodes, addr, port = 1, "127.0.0.1", free_port()
    log_dir = args.log_dir or os.path.join(os.getcwd(), "torchrun_logs")
    worker = ["-c", _WORKER_CODE, str(nproc), str(args.node_rank)]
    worker += ["-m"] if args.module else []
    worker += ["--no-python"] if args.no_python else []
    return ["msrun", f"--worker_num={nproc * nnodes}", f"--local_worker_num={nproc}", f"--master_addr={addr}",
            f"--master_port={port}", f"--node_rank={args.node_rank if nnodes > 1 else 0}", f"--log_dir={log_dir}",
            "--join=True", "python", *worker, args.training_script, *args.training_script_args]


def main(args=None):
    """torchrun: start the workers through msrun's process manager and wait for them."""
    argv = sys.argv[1:] if args is None else list(args)
    try:
        run(parse_args(argv))
    except ChildFailedError as e:     # a worker failed: msrun stopped the others
        print(f"mstorch's torchrun: {e}", file=sys.stderr)
        return 1
    return 0


def run(args):
    """torch.distributed.run.run: launch the workers ``args`` (parsed by ``get_args_parser()``) describe and
    wait for them; a failed worker raises torch's ``ChildFailedError`` (after msrun stopped the others), naming
    the script and each failed worker's rank, pid, exit code and, when it wrote one, its error file."""
    msrun = msrun_argv(args)
    # msrun's process manager writes each child's variables (MS_ROLE, MS_SCHED_PORT, RANK_ID, ...) into
    # this process's environment before it starts the child: the caller's environment comes back after,
    # or a later init_process_group here would take itself for one of msrun's workers
    environ = dict(os.environ)
    try:
        _launch(args, msrun)
    finally:
        os.environ.clear()
        os.environ.update(environ)


def _launch(args, msrun):
    # msrun starts its workers as ``python ...``: this interpreter
    here = os.path.dirname(sys.executable)
    os.environ["PATH"] = here + os.pathsep + os.environ.get("PATH", "")
    from mindspore.parallel.cluster import run as msrun_run
    from .._ms_private import msrun_process_manager
    saved, sys.argv = sys.argv, msrun
    try:
        parsed = msrun_run.get_args()
    finally:
        sys.argv = saved
    # each worker's uncaught exception goes to its own error file (what torchrun's agent hands a worker)
    error_dir = tempfile.mkdtemp(prefix="mstorch_torchrun_")
    os.environ[_ERROR_DIR] = error_dir
    manager = msrun_process_manager()(parsed)
    try:
        manager.run()
    except RuntimeError:
        raise _child_failed(args, manager, error_dir) from None


_ERROR_DIR = "MSTORCH_TORCHRUN_ERROR_DIR"


def _error_file(error_dir, rank):
    return os.path.join(error_dir, f"error_{rank}.json")


def _child_failed(args, manager, error_dir):
    """torch's ChildFailedError for msrun's failed job, keyed by global rank as torch's agent reports them: the
    workers that failed first, then the peers msrun stopped (SIGKILL; torch's agent sends SIGTERM)."""
    from .launcher.api import _entrypoint_name
    nproc = _nproc(args.nproc_per_node)
    exits = {args.node_rank * nproc + local: (p.pid, p.poll()) for local, p in manager.proc_rank_map.items()}
    failed = sorted(((code == -signal.SIGKILL, rank), pid, code) for rank, (pid, code) in exits.items()
                    if code not in (0, None))
    failures = {rank: ProcessFailure(local_rank=rank - args.node_rank * nproc, pid=pid, exitcode=code,
                                     error_file=_error_file(error_dir, rank))
                for (_, rank), pid, code in failed}
    if not failures:      # the scheduler failed, every worker exited 0: torch has no such case; msrun's error
        raise RuntimeError(f"mstorch's torchrun: msrun's scheduler failed; see the logs in {manager.log_dir}")
    if args.no_python:
        cmd, cmd_args = args.training_script, []
    else:
        cmd, cmd_args = sys.executable, ["-u", *(["-m"] if args.module else []), args.training_script]
    return ChildFailedError(name=_entrypoint_name(cmd, cmd_args), failures=failures)


def _worker(argv):
    """One worker started by msrun: torchrun's environment, then the script (the scheduler process serves
    MindSpore's cluster instead)."""
    nproc, node_rank, rest = int(argv[0]), int(argv[1]), argv[2:]
    module = rest[:1] == ["-m"]
    rest = rest[1:] if module else rest
    no_python = rest[:1] == ["--no-python"]
    rest = rest[1:] if no_python else rest
    local_rank = int(os.environ.get("DEVICE_ID", "0"))
    rank = int(os.environ.get("RANK_ID") or node_rank * nproc + local_rank)
    os.environ.update(RANK=str(rank), LOCAL_RANK=str(local_rank), WORLD_SIZE=os.environ.get("MS_WORKER_NUM", "1"),
                      LOCAL_WORLD_SIZE=str(nproc), GROUP_RANK=str(node_rank), ROLE_RANK=str(rank),
                      ROLE_WORLD_SIZE=os.environ.get("MS_WORKER_NUM", "1"), ROLE_NAME="default",
                      MASTER_ADDR=os.environ.get("MS_SCHED_HOST", "127.0.0.1"),
                      MASTER_PORT=os.environ.get("MS_SCHED_PORT", "29500"),
                      TORCHELASTIC_RUN_ID=os.environ.get("TORCHELASTIC_RUN_ID", "none"),
                      TORCHELASTIC_RESTART_COUNT="0", TORCHELASTIC_MAX_RESTARTS="0")
    if os.environ.get(_ERROR_DIR):
        os.environ["TORCHELASTIC_ERROR_FILE"] = _error_file(os.environ[_ERROR_DIR], rank)
    if no_python:
        os.execvp(rest[0], rest)
    sys.argv = list(rest)
    if module:
        runpy.run_module(rest[0], run_name="__main__", alter_sys=True)
    else:
        sys.path.insert(0, os.path.dirname(os.path.abspath(rest[0])))
        runpy.run_path(rest[0], run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
