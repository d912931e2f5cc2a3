#!/usr/bin/env bash
# GPU smoke test of mstorch (issue 15): on a Linux machine with an NVIDIA GPU, its driver and network access,
# install the CUDA 11 libraries MindSpore 2.10's GPU plugin links against from the package registry (NVIDIA's
# *-cu11 wheels), point the loader at them, and run the demo and a subset of the compatibility suite with
# MSTORCH_DEVICE_TARGET=GPU. Run from anywhere:
#
#     tools/gpu_smoke.sh                 # venv in .gpu-venv, demo + device checks + test subset
#     GPU_SMOKE_TESTS="compat_tests/test_ops.py" tools/gpu_smoke.sh
#
# Settings (environment): PYTHON (interpreter for the venv, default python3.11), GPU_SMOKE_VENV (default
# <repo>/.gpu-venv; reused when present), GPU_SMOKE_TESTS (pytest arguments), CUDA_HOME (a real CUDA 11.x
# toolkit; by default the script makes a stub, see step 3). Output: one line per step, "SMOKE OK" at the end;
# the log of each step in $GPU_SMOKE_VENV/logs/.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PYTHON="${PYTHON:-python3.11}"
VENV="${GPU_SMOKE_VENV:-$ROOT/.gpu-venv}"
TESTS="${GPU_SMOKE_TESTS:-compat_tests/test_devices.py compat_tests/test_tensor.py compat_tests/test_layers.py compat_tests/test_autograd.py compat_tests/test_optim.py compat_tests/test_random.py compat_tests/test_nn_activation_loss.py compat_tests/test_transformer.py}"
LOGS="$VENV/logs"
step() { echo "== $*"; }

# 0. the GPU and its driver (libcuda.so.1 comes with the driver, never from pip)
step "0. GPU"
if ! command -v nvidia-smi >/dev/null; then
    echo "nvidia-smi not found: this machine has no NVIDIA driver" >&2
    exit 2
fi
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader

# 1. a venv with mstorch, MindSpore 2.10 and the test oracle (torch's CPU wheel: the PyPI default is a CUDA
#    build of several GB that the tests do not need)
step "1. venv $VENV"
if [ ! -x "$VENV/bin/python" ]; then
    "$PYTHON" -m venv "$VENV" || python3 -m venv "$VENV"
fi
PY="$VENV/bin/python"
mkdir -p "$LOGS"
"$PY" -m pip install -q --upgrade pip
"$PY" -m pip install -q "torch==2.13.0" --index-url https://download.pytorch.org/whl/cpu
"$PY" -m pip install -q -e "$ROOT[test]"

# 2. the CUDA 11 libraries named by libmindspore_gpu.so.11.6's NEEDED entries: cudart 11, cuBLAS 11, cuDNN 8,
#    cuFFT 10, cuRAND 10, cuSOLVER 11, cuSPARSE 11, NVRTC 11.2+ (11.x wheels keep those sonames)
step "2. CUDA 11 runtime, cuBLAS, cuDNN 8 wheels"
"$PY" -m pip install -q \
    "nvidia-cuda-runtime-cu11==11.8.*" "nvidia-cublas-cu11==11.11.*" "nvidia-cudnn-cu11>=8.6,<9" \
    "nvidia-cufft-cu11==10.9.*" "nvidia-curand-cu11==10.3.*" "nvidia-cusolver-cu11==11.4.*" \
    "nvidia-cusparse-cu11==11.7.*" "nvidia-cuda-nvrtc-cu11==11.8.*"
SITE="$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
MS_PLUGIN="$SITE/mindspore/lib/plugin"
LIBS=""
for d in "$SITE"/nvidia/*/lib; do LIBS="$LIBS:$d"; done
# MindSpore's own GPU helpers (akg, NCCL, cuda_ops) live next to its plugin
export LD_LIBRARY_PATH="${LIBS#:}:$MS_PLUGIN/gpu11.6:$MS_PLUGIN/gpu:${LD_LIBRARY_PATH:-}"

# 3. MindSpore picks its GPU plugin by the CUDA version `$CUDA_HOME/bin/nvcc --version` prints. The wheels
#    carry no nvcc: without a real toolkit a stub reports 11.6, the plugin built for the CUDA 11.x runtime
#    installed above (CUDA minor-version compatibility). It compiles nothing: MindSpore only reads the version.
step "3. CUDA_HOME"
if [ -z "${CUDA_HOME:-}" ] || [ ! -x "$CUDA_HOME/bin/nvcc" ]; then
    export CUDA_HOME="$VENV/cuda-stub"
    mkdir -p "$CUDA_HOME/bin"
    cat > "$CUDA_HOME/bin/nvcc" <<'EOF'
#!/bin/sh
echo "nvcc: NVIDIA (R) Cuda compiler driver"
echo "Cuda compilation tools, release 11.6, V11.6.124"
EOF
    chmod +x "$CUDA_HOME/bin/nvcc"
fi
echo "CUDA_HOME=$CUDA_HOME"

# 4. MindSpore alone on the GPU
step "4. MindSpore on GPU"
"$PY" - <<'EOF' 2>&1 | tee "$LOGS/mindspore.log"
import numpy as np
import mindspore as ms
ms.set_device("GPU")
ms.set_context(mode=ms.PYNATIVE_MODE)
x = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
y = ms.ops.matmul(x, x.T)
assert np.allclose(y.asnumpy(), np.arange(6.0).reshape(2, 3) @ np.arange(6.0).reshape(2, 3).T), y
print("mindspore GPU ok:", ms.get_context("device_target"), y.asnumpy().tolist())
EOF

export MSTORCH_DEVICE_TARGET=GPU

# 5. mstorch placement, mixed-device errors and device random numbers on the real device
step "5. mstorch device checks"
"$PY" - <<'EOF' 2>&1 | tee "$LOGS/mstorch_device.log"
import mstorch as torch
assert torch.cuda.is_available(), "MSTORCH_DEVICE_TARGET=GPU did not give a CUDA device"
print("devices:", torch.cuda.device_count(), torch.cuda.get_device_name())
x = torch.arange(12.0).reshape(3, 4)
y = x.to("cuda")
assert y.device == torch.device("cuda", 0) and y.is_cuda and x.device.type == "cpu"
z = (y @ y.t() + 1).relu().cpu()
assert z.device.type == "cpu" and torch.equal(z, (x @ x.t() + 1).relu()), z
try:
    x + y
    raise AssertionError("a mixed-device op did not raise")
except RuntimeError as exc:
    assert "Expected all tensors to be on the same device" in str(exc), exc
model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Dropout(0.1), torch.nn.Linear(8, 2)).cuda()
opt = torch.optim.Adam(model.parameters())
loss = torch.nn.functional.cross_entropy(model(y), torch.tensor([0, 1, 0], device="cuda"))
loss.backward()
opt.step()
assert {p.device.type for p in model.parameters()} == {"cuda"} and model[0].weight.grad.is_cuda
torch.cuda.manual_seed(0)
a = torch.rand(5, device="cuda")
torch.cuda.manual_seed(0)
assert torch.equal(a, torch.rand(5, device="cuda")), "device generator not reproducible"
state = torch.cuda.get_rng_state()
b = torch.randn(4, device="cuda")
torch.cuda.set_rng_state(state)
assert torch.equal(b, torch.randn(4, device="cuda"))
print("mstorch device checks ok: loss", round(loss.item(), 4))
EOF

# 6. the demo (plain PyTorch; it takes its CUDA path when torch.cuda.is_available())
step "6. demo"
(cd "$ROOT" && "$PY" -m mstorch run examples/train_digits.py --epochs 2) 2>&1 | tee "$LOGS/demo.log" | tail -3

# 7. a subset of the suite: mstorch on the GPU against torch on the CPU (the simulated-device tests skip)
step "7. tests: $TESTS"
(cd "$ROOT" && "$PY" -m pytest -q -p no:randomly -x $TESTS) 2>&1 | tee "$LOGS/tests.log" | tail -5

echo "SMOKE OK"
