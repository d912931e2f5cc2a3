"""torch.distributed.DeviceMesh / init_device_mesh (peft, transformers, accelerate) in a one-process world: the
mesh, its groups per dimension, local ranks, slicing by name, repr, equality and torch's errors. Each namespace
runs in its own subprocess (a default process group per process)."""
import json
import os
import subprocess
import sys

import pytest

from ranks import free_port

pytestmark = pytest.mark.opens_ports

CODE = r'''
import importlib, json, sys
T = importlib.import_module(sys.argv[1])
dist = T.distributed
out = []
def attempt(f):
    try:
        return f()
    except Exception as e:
        return ["raised", type(e).__name__, str(e)]
m = dist.init_device_mesh("cpu", (1,), mesh_dim_names=("dp",))
out.append([dist.is_initialized(), repr(m), str(m), m.mesh.tolist(), str(m.mesh.dtype), m.ndim, list(m.shape),
            m.size(), m.size(0), m.get_rank(), m.get_local_rank(), list(m.get_coordinate()), list(m.mesh_dim_names),
            m.device_type, m.get_group() is dist.group.WORLD, dist.get_world_size(m.get_group()),
            m.get_group("dp") is m.get_group(), len(m.get_all_groups())])
m2 = dist.init_device_mesh("cpu", (1, 1), mesh_dim_names=("dp", "tp"))
t = T.ones(2)
dist.all_reduce(t, group=m2.get_group("tp"))
out.append([repr(m2), m2.mesh.tolist(), repr(m2["tp"]), m2["dp"].mesh.tolist(), m2.get_local_rank("tp"), m2.size(1),
            [dist.get_world_size(g) for g in m2.get_all_groups()], repr(m2["dp", "tp"]), t.tolist(),
            m2["tp"].get_group() is m2.get_group("tp")])
out.append(attempt(lambda: m2.get_group()))
out.append(attempt(lambda: dist.init_device_mesh("cpu", (2,))))
out.append(attempt(lambda: m2["zz"]))
out.append(attempt(lambda: dist.init_device_mesh("cpu", (1,), mesh_dim_names=("a", "b"))))
m3 = dist.DeviceMesh("cpu", [0])
m4 = dist.DeviceMesh("cpu", T.tensor([[0]]), mesh_dim_names=("x", "y"))
out.append([repr(m3), m3 == m, hash(m3) == hash(m), m3 == dist.DeviceMesh("cpu", [0]), repr(m4), repr(m4["x"]),
            list(m4.mesh_dim_names), attempt(lambda: m3["x"])[:2]])
dist.destroy_process_group()
print("RESULT" + json.dumps(out))
'''


def _run(namespace):
    env = dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT=str(free_port()), RANK="0", WORLD_SIZE="1")
    out = subprocess.run([sys.executable, "-c", CODE, namespace], env=env, capture_output=True, text=True, timeout=240)
    lines = [ln for ln in out.stdout.splitlines() if ln.startswith("RESULT")]
    assert lines, out.stderr[-3000:]
    return json.loads(lines[0][len("RESULT"):])


def test_device_mesh_single_process():
    ref, got = _run("torch"), _run("mstorch")
    for r, g in zip(ref, got):
        if r and r[0] == "raised":     # exception type and message
            assert g[:2] == r[:2] and g[2] == r[2], (r, g)
        else:
            assert g == r, (r, g)
