# kaartlab: `make study` sets up and runs the main study with its report; `make test` sets up and
# runs the tests. Both create .venv with the project's own dependencies on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: study test bench setup clean wizard-tables serve

study: $(STAMP)
	$(BIN)/kaartlab study examples/john-knut.toml --out runs/john-knut --report

serve: $(STAMP)  # the web service on http://127.0.0.1:8000/ (docs/service.md)
	$(BIN)/kaartlab serve --runs runs

test: $(STAMP)
	bash .ci/ensure-chromium.sh
	$(BIN)/kaartlab compile --trace --search  # every kernel the tests run, games in parallel (minutes on a fresh clone)
	$(BIN)/python -m pytest -q -n auto --dist loadfile --durations=25  # a process per core, each file in one

bench: $(STAMP)
	$(BIN)/python -m benchmarks

# the Wizard heuristic's bid table and bid factors, then the sampler's bid bonus (it bids around the
# heuristic's bids compiled from the written module, so a second run): kernels/wizard/bid_tables.py,
# measured by self-play: ~15 min
wizard-tables: $(STAMP)
	$(BIN)/python tools/wizard_bid_tables.py
	$(BIN)/python tools/wizard_bid_tables.py --sampler-bonus
	$(BIN)/python tools/wizard_bid_tables.py --search-bonus

setup: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -c 'import sys; sys.exit("kaartlab needs Python 3.11+") if sys.version_info < (3, 11) else None'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

clean:
	rm -rf $(VENV) runs
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
