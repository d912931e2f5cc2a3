"""Launching a two-process mstorch.distributed script: MindSpore's msrun, mstorch's torchrun
(``python -m mstorch.distributed.run``, on msrun's machinery) and real torch's torchrun (whose agent
holds MASTER_PORT with its own store: TORCHELASTIC_USE_AGENT_STORE)."""
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

import mstorch
from ranks import free_port

pytestmark = pytest.mark.opens_ports

ROOT = pathlib.Path(mstorch.__file__).resolve().parent.parent
BIN = pathlib.Path(sys.executable).parent

SCRIPT = """
import os, sys
import mstorch as torch
import mstorch.distributed as dist

env = {k: os.environ.get(k) for k in ("RANK", "LOCAL_RANK", "WORLD_SIZE")}
dist.init_process_group("gloo")
rank = dist.get_rank()
t = torch.tensor([float(rank + 1)])
dist.all_reduce(t)
torch.manual_seed(0)
model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(3, 1))
x = torch.arange(6.0).reshape(2, 3) * (rank + 1)
model(x).sum().backward()
grad = model.module.weight.grad.tolist()
print(f"RESULT rank={rank} world={dist.get_world_size()} local={dist.get_node_local_rank()} sum={t.item()} "
      f"grad={grad} env={env} argv={sys.argv[1:]}", flush=True)
dist.destroy_process_group()
"""


def launch(cmd, cwd):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
               PATH=os.pathsep.join([str(BIN), os.environ.get("PATH", "")]))
    env.pop("TORCHELASTIC_USE_AGENT_STORE", None)
    out = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=240)
    # msrun tails both workers' logs into one stream: two lines may run together
    found = re.findall(r"RESULT rank=(\d) (.*?argv=\[[^\]]*\])", out.stdout + out.stderr)
    return out, {int(rank): rest for rank, rest in found}


def check(out, results, env_set):
    assert out.returncode == 0, (out.stdout + out.stderr)[-3000:]
    assert sorted(results) == [0, 1], (out.stdout + out.stderr)[-3000:]
    # the gradient every rank holds: the average of the two ranks' (x and 2x): 1.5 times rank 0's
    grad = [[4.5, 7.5, 10.5]]
    for r in (0, 1):
        line = results[r]
        assert f"world=2 local={r} sum=3.0 grad={grad}" in line, line
        env = f"'RANK': '{r}', 'LOCAL_RANK': '{r}', 'WORLD_SIZE': '2'" if env_set else \
            "'RANK': None, 'LOCAL_RANK': None, 'WORLD_SIZE': None"
        assert env in line and "argv=['--flag', '7']" in line, line


@pytest.fixture
def script(tmp_path):
    path = tmp_path / "train.py"
    path.write_text(SCRIPT)
    return path


def test_msrun(script, tmp_path):
    """msrun as MindSpore ships it: the script reads nothing from torch's environment variables;
    init_process_group joins msrun's cluster and the ranks come from it."""
    out, results = launch([str(BIN / "msrun"), "--worker_num=2", "--local_worker_num=2",
                           f"--master_port={free_port()}", f"--log_dir={tmp_path / 'logs'}", "--join=True",
                           str(script), "--flag", "7"], tmp_path)
    check(out, results, env_set=False)


def test_mstorch_torchrun(script, tmp_path):
    out, results = launch([sys.executable, "-m", "mstorch.distributed.run", "--nproc-per-node=2", "--standalone",
                           f"--log-dir={tmp_path / 'logs'}", str(script), "--flag", "7"], tmp_path)
    check(out, results, env_set=True)


@pytest.mark.skipif(shutil.which("torchrun", path=str(BIN)) is None, reason="torch's torchrun is not installed")
def test_real_torchrun(script, tmp_path):
    out, results = launch([str(BIN / "torchrun"), "--nproc-per-node=2", "--standalone", str(script), "--flag", "7"],
                          tmp_path)
    check(out, results, env_set=True)


def test_torchrun_arguments():
    from mstorch.distributed import run
    argv = run.msrun_argv(run.parse_args(["--nnodes=2", "--nproc_per_node=3", "--node-rank=1",
                                          "--master-addr=10.0.0.1", "--master_port=1234", "--log-dir=/tmp/l",
                                          "train.py", "--lr", "0.1"]))
    assert argv[:8] == ["msrun", "--worker_num=6", "--local_worker_num=3", "--master_addr=10.0.0.1",
                        "--master_port=1234", "--node_rank=1", "--log_dir=/tmp/l", "--join=True"]
    assert argv[-3:] == ["train.py", "--lr", "0.1"]
    with pytest.raises(ValueError, match="elastic"):
        run.msrun_argv(run.parse_args(["--nnodes=1:4", "train.py"]))
    with pytest.raises(ValueError, match="max-restarts"):
        run.msrun_argv(run.parse_args(["--max-restarts=3", "train.py"]))


def _elastic_worker(namespace, scale):
    """A worker of elastic_launch: what torchrun's environment says, and an all_reduce over the workers."""
    import importlib
    T = importlib.import_module(namespace)
    env = {k: os.environ.get(k) for k in ("RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "GROUP_RANK")}
    if scale < 0:
        raise ValueError("worker failed on purpose")
    T.distributed.init_process_group("gloo")
    t = T.tensor([float(T.distributed.get_rank() + 1)]) * scale
    T.distributed.all_reduce(t)
    T.distributed.destroy_process_group()
    return env, t.tolist()


@pytest.mark.parametrize("namespace", ["torch", "mstorch"])
def test_elastic_launch_function(namespace):
    """torch.distributed.launcher.api.elastic_launch (accelerate's notebook_launcher) with a Python function:
    {rank: return value}, torchrun's environment in each worker; a worker's exception raises ChildFailedError."""
    import importlib
    api = importlib.import_module(namespace + ".distributed.launcher.api")
    errors = importlib.import_module(namespace + ".distributed.elastic.multiprocessing.errors")
    config = api.LaunchConfig(min_nodes=1, max_nodes=1, nproc_per_node=2, rdzv_backend="static",
                              rdzv_endpoint=f"127.0.0.1:{free_port()}", rdzv_configs={"rank": 0}, max_restarts=0,
                              start_method="fork")
    assert config.rdzv_configs == {"rank": 0, "timeout": 900} and config.shutdown_timeout == 30
    out = api.elastic_launch(config, _elastic_worker)(namespace, 2.0)
    assert out == {r: ({"RANK": str(r), "LOCAL_RANK": str(r), "WORLD_SIZE": "2", "LOCAL_WORLD_SIZE": "2",
                        "GROUP_RANK": "0"}, [6.0]) for r in (0, 1)}
    config = api.LaunchConfig(min_nodes=1, max_nodes=1, nproc_per_node=2, rdzv_backend="static",
                              rdzv_endpoint=f"127.0.0.1:{free_port()}", rdzv_configs={"rank": 0}, max_restarts=0,
                              start_method="fork")
    with pytest.raises(errors.ChildFailedError, match="_elastic_worker FAILED"):
        api.elastic_launch(config, _elastic_worker)(namespace, -1.0)


FAILING_SCRIPT = """
import importlib, os, sys, time
T = importlib.import_module(os.environ["NS"])
from {ns}.distributed.elastic.multiprocessing.errors import record

@record
def main():
    T.distributed.init_process_group("gloo")
    if T.distributed.get_rank() == 1:
        raise ValueError("worker failed on purpose")
    time.sleep(60)

main()
"""


@pytest.mark.parametrize("namespace", ["torch", "mstorch"])
def test_run_failed_worker(namespace, tmp_path, monkeypatch):
    """torch.distributed.run.run with a worker that raises: ChildFailedError naming the script, the failed rank
    first (the root cause, its @record traceback read from its error file), then the peer the launcher stopped."""
    import importlib
    run = importlib.import_module(namespace + ".distributed.run")
    errors = importlib.import_module(namespace + ".distributed.elastic.multiprocessing.errors")
    script = tmp_path / "fail.py"
    script.write_text(FAILING_SCRIPT.format(ns=namespace))
    monkeypatch.setenv("NS", namespace)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    monkeypatch.chdir(tmp_path)
    log_dir = ["--log-dir", str(tmp_path / "logs")] if namespace == "mstorch" else []
    args = run.parse_args(["--nproc-per-node=2", "--standalone", *log_dir, str(script), "--flag"])
    environ = dict(os.environ)
    with pytest.raises(errors.ChildFailedError) as info:
        run.run(args)
    # the launcher leaves this process's environment as it was (torch's keeps only the signal list its agent
    # installed, TORCHELASTIC_SIGNALS_TO_HANDLE): a worker's MS_ROLE or RANK_ID left here would make a later
    # init_process_group in this process take itself for one of msrun's workers
    changed = {k for k in set(environ) | set(os.environ) if environ.get(k) != os.environ.get(k)}
    assert changed <= {"TORCHELASTIC_SIGNALS_TO_HANDLE"}, changed
    e = info.value
    assert e.name == str(script)
    assert list(e.failures) == [1, 0]
    root_rank, root = e.get_first_failure()
    assert (root_rank, root.local_rank, root.exitcode) == (1, 1, 1)
    assert os.path.isfile(root.error_file) and "worker failed on purpose" in root.message["message"]
    assert e.failures[0].exitcode < 0 and e.failures[0].error_file == "<N/A>"
    text = str(e)
    assert text.startswith(f"\n{'=' * 60}\n{script} FAILED\n{'-' * 60}\nFailures:\n[1]:\n")
    assert "Root Cause (first observed failure):\n[0]:\n" in text and "ValueError: worker failed on purpose" in text
