# Two entry points: `make demo` and `make test` (`make fuzz MINUTES=n` fuzzes against torch). Both create .venv when it is missing.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test test-device-path lint venv bench docs clean fuzz

$(STAMP): pyproject.toml setup.py mstorch/_random/_fastrng.c
	@test -x $(PY) || $(PYTHON) -m venv $(VENV) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[test]"
	@touch $(STAMP)

venv: $(STAMP)

demo: $(STAMP)
	$(PY) -m mstorch run examples/train_digits.py

lint: $(STAMP)
	$(VENV)/bin/ruff check --quiet mstorch compat_tests tools benchmarks examples
	$(VENV)/bin/lint-imports --no-cache

test: $(STAMP) lint
	$(PY) -m pytest -n 2 compat_tests -p no:randomly

# the device path on CPU (docs/design.md, "Device path"): the kernel-only implementations a GPU/Ascend runs,
# over a subset covering every op family; CPU-kernel failures are listed in compat_tests/known_failures_device_path.txt
DEVICE_PATH_TESTS := compat_tests/test_ops.py::test_op compat_tests/test_nn_activation_loss.py \
	compat_tests/test_nn_attention.py compat_tests/test_optim.py compat_tests/test_indexing.py compat_tests/test_device_path.py
test-device-path: $(STAMP)
	MSTORCH_DEVICE_PATH=1 $(PY) -m pytest -n 2 -p no:randomly -q $(DEVICE_PATH_TESTS)

# training steps of real workloads vs raw MindSpore and torch -> docs/performance.md (`make bench QUICK=1`: a few minutes)
bench: $(STAMP)
	$(PY) benchmarks/workloads.py $(if $(QUICK),--quick,)
	$(PY) benchmarks/ecosystem.py $(if $(QUICK),--rounds 3,)

# differential fuzzing against torch with a random seed: `make fuzz MINUTES=60`
MINUTES ?= 10
fuzz: $(STAMP)
	$(PY) tools/fuzz.py --minutes $(MINUTES)

docs: $(STAMP)
	$(PY) tools/gen_coverage.py
	$(PY) tools/api_coverage.py

clean:
	rm -rf $(VENV)
