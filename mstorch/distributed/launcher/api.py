"""Mirrors torch.distributed.launcher.api: ``elastic_launch(config, entrypoint)(*args)`` starts
``config.nproc_per_node`` workers on this machine, each with torchrun's environment (RANK, LOCAL_RANK, WORLD_SIZE,
LOCAL_WORLD_SIZE, GROUP_RANK, MASTER_ADDR, MASTER_PORT, TORCHELASTIC_*), waits for them and returns
``{rank: return value}`` (None for a command), or raises ``ChildFailedError`` naming the failed workers.

A Python function runs in ``torch.multiprocessing`` processes (``config.start_method``); a command (a string,
``sys.executable`` with a script for instance) runs as subprocesses. ``init_process_group()`` in a worker joins
the others through ``MASTER_ADDR:MASTER_PORT``. Elastic membership is not supported: one node
(``min_nodes == max_nodes == 1``), no restarts."""
import os
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field

from ..elastic.multiprocessing.errors import ChildFailedError, ProcessFailure, get_error_handler

__all__ = ["LaunchConfig", "elastic_launch", "launch_agent"]


@dataclass
class LaunchConfig:
    min_nodes: int
    max_nodes: int
    nproc_per_node: int
    logs_specs: object = None
    run_id: str = ""
    role: str = "default_role"
    rdzv_endpoint: str = ""
    rdzv_backend: str = "etcd"
    rdzv_configs: dict = field(default_factory=dict)
    rdzv_timeout: int = -1
    max_restarts: int = 3
    monitor_interval: float = 0.1
    start_method: str = "spawn"
    log_line_prefix_template: str = None
    metrics_cfg: dict = field(default_factory=dict)
    local_addr: str = None
    event_log_handler: str = "null"
    numa_options: object = None
    signals_to_handle: str = "SIGTERM,SIGINT,SIGHUP,SIGQUIT"
    duplicate_stdout_filters: list = None
    duplicate_stderr_filters: list = None
    virtual_local_rank: bool = False
    shutdown_timeout: int = None

    def __post_init__(self):
        if self.rdzv_timeout != -1:
            self.rdzv_configs["timeout"] = self.rdzv_timeout
        elif "timeout" not in self.rdzv_configs:
            self.rdzv_configs["timeout"] = 900
        if self.shutdown_timeout is None:
            self.shutdown_timeout = int(os.environ.get("TORCH_ELASTIC_SHUTDOWN_TIMEOUT", "30"))
        elif self.shutdown_timeout < 0:
            raise ValueError(f"shutdown_timeout must be non-negative, got {self.shutdown_timeout}")


class elastic_launch:  # noqa: N801 - torch's name
    """``elastic_launch(config, entrypoint)(*args)``: see the module docstring."""

    def __init__(self, config, entrypoint, health_check_server=None):
        self._config = config
        self._entrypoint = entrypoint

    def __call__(self, *args):
        return launch_agent(self._config, self._entrypoint, list(args))


def _entrypoint_name(entrypoint, args):
    if callable(entrypoint):
        return entrypoint.__name__
    if isinstance(entrypoint, str):
        return next((a for a in args if a[0] != "-"), "") if entrypoint == sys.executable else entrypoint
    return ""


def _master(config):
    """(address, port) of the rendezvous: the static endpoint, else a free port here."""
    endpoint = config.rdzv_endpoint.strip()
    if config.rdzv_backend == "static" and "rank" not in config.rdzv_configs:
        raise ValueError("rank is absent in RendezvousParameters.Try add --node-rank to the cmd request")
    if config.rdzv_backend == "static" or endpoint:
        if not endpoint:
            raise ValueError("Endpoint is missing in endpoint. Try to add --master-addr and --master-port")
        host, _, port = endpoint.rpartition(":")
        if not host or not port:
            raise ValueError(f"port is missing in endpoint: {endpoint}. Try to specify --master-port")
        return host, int(port)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return "127.0.0.1", s.getsockname()[1]


def _worker_env(config, local_rank, addr, port, error_file):
    n = config.nproc_per_node
    return {"RANK": str(local_rank), "LOCAL_RANK": str(local_rank), "WORLD_SIZE": str(n), "LOCAL_WORLD_SIZE": str(n),
            "GROUP_RANK": "0", "GROUP_WORLD_SIZE": "1", "ROLE_RANK": str(local_rank), "ROLE_WORLD_SIZE": str(n),
            "ROLE_NAME": config.role, "MASTER_ADDR": addr, "MASTER_PORT": str(port),
            "TORCHELASTIC_RUN_ID": config.run_id, "TORCHELASTIC_RESTART_COUNT": "0",
            "TORCHELASTIC_MAX_RESTARTS": str(config.max_restarts), "TORCHELASTIC_USE_AGENT_STORE": "False",
            "TORCHELASTIC_ERROR_FILE": error_file, "TORCH_NCCL_ASYNC_ERROR_HANDLING": "1"}


def _run_function(local_rank, envs, entrypoint, args, results):
    """One function worker: torchrun's environment, the entrypoint, its return value sent to the agent; an
    exception is written to the worker's error file (what ``@record`` does) before it propagates."""
    os.environ.update(envs[local_rank])
    try:
        value = entrypoint(*args)
    except Exception as e:
        get_error_handler().record_exception(e)
        raise
    results.put((local_rank, value))


def launch_agent(config, entrypoint, args):
    if not (config.min_nodes == config.max_nodes == 1):
        raise NotImplementedError(f"torch.distributed.launcher.api.elastic_launch: mstorch launches on one node only "
                                  f"(min_nodes={config.min_nodes}, max_nodes={config.max_nodes}); start the other "
                                  "nodes with `python -m mstorch.distributed.run --nnodes=N --node-rank=...`")
    if config.numa_options is not None:
        raise NotImplementedError("torch.distributed.launcher.api.elastic_launch: numa_options bind each worker to its "
                                  "GPU's NUMA node; mstorch's workers run on the CPU without binding")
    if not config.run_id:
        config.run_id = str(uuid.uuid4().int)
    addr, port = _master(config)
    tmp = tempfile.mkdtemp(prefix="mstorch_elastic_")
    files = [os.path.join(tmp, f"error_{r}.json") for r in range(config.nproc_per_node)]
    envs = [_worker_env(config, r, addr, port, files[r]) for r in range(config.nproc_per_node)]
    if callable(entrypoint):
        return _launch_function(config, entrypoint, args, envs, files)
    return _launch_command(config, entrypoint, args, envs, files)


def _launch_function(config, entrypoint, args, envs, files):
    from ...multiprocessing import ProcessException, get_context, start_processes
    results = get_context(config.start_method).SimpleQueue()
    context = start_processes(_run_function, args=(envs, entrypoint, tuple(args), results),
                              nprocs=config.nproc_per_node, join=False, start_method=config.start_method)
    returned = {}

    def drain():
        while not results.empty():
            rank, value = results.get()
            returned[rank] = value
    try:
        while not context.join(timeout=config.monitor_interval):
            drain()
    except ProcessException as e:
        failures = {}
        for rank, p in enumerate(context.processes):
            if p.exitcode not in (0, None) or rank == e.error_index:
                failures[rank] = ProcessFailure(local_rank=rank, pid=p.pid, exitcode=p.exitcode or 1,
                                                error_file=files[rank])
        raise ChildFailedError(name=_entrypoint_name(entrypoint, args), failures=failures) from None
    drain()
    return {rank: returned.get(rank) for rank in range(config.nproc_per_node)}


def _launch_command(config, entrypoint, args, envs, files):
    procs = [subprocess.Popen([entrypoint, *map(str, args)], env={**os.environ, **env}) for env in envs]
    while any(p.poll() is None for p in procs):
        if any(p.poll() not in (None, 0) for p in procs):     # one failed: its peers would wait for it forever
            for p in procs:
                if p.poll() is None:
                    p.terminate()
            break
        time.sleep(config.monitor_interval)
    codes = [p.wait() for p in procs]
    failures = {rank: ProcessFailure(local_rank=rank, pid=p.pid, exitcode=code, error_file=files[rank])
                for rank, (p, code) in enumerate(zip(procs, codes)) if code != 0}
    if failures:
        raise ChildFailedError(name=_entrypoint_name(entrypoint, args), failures=failures)
    return {rank: None for rank in range(config.nproc_per_node)}
