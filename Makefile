# Every target sets up .venv from a bare machine first.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: test run bench clean

$(STAMP): pyproject.toml setup.py $(wildcard kernels/*.pyx kernels/*.pxd)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[test]"
	touch $(STAMP)

test: $(STAMP)
	$(PY) -m pytest tests -q

run: $(STAMP)
	$(VENV)/bin/meldmind demo

bench: $(STAMP)
	$(PY) -m pytest bench --benchmark-only --benchmark-columns=min,median,mean,ops,rounds

clean:
	rm -rf $(VENV) build *.egg-info kernels/*.c kernels/*.so kernels/*.html
	find kernels -name "*.nb[ic]" -delete   # numba's caches of the kernels
