# turnwire: `make run` starts the server, `make test` runs every test. Both set up what they need.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000
NODE_DIR := tests/conformance/node
WEB_DIR := web

.PHONY: run test lint venv system-deps node-deps page screenshot bench clean

# Two stamps: `make run` installs only what the server imports; `make test` adds the test tools.
$(VENV)/.run-deps: pyproject.toml
	test -d $(VENV) || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e .
	touch $@

$(VENV)/.dev-deps: pyproject.toml
	test -d $(VENV) || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $(VENV)/.run-deps $@

venv: $(VENV)/.dev-deps

run: $(VENV)/.run-deps
	$(BIN)/turnwire serve --host $(HOST) --port $(PORT)

system-deps:
	bash scripts/install-system-deps

node-deps:
	cd $(NODE_DIR) && npm ci --no-audit --no-fund --loglevel=error
	cd $(WEB_DIR) && npm ci --no-audit --no-fund --loglevel=error

# Rebuild the chat page (web/ -> src/turnwire/server/static/); commit the result.
page:
	cd $(WEB_DIR) && npm ci --no-audit --no-fund --loglevel=error && npm run check && npm run build && node vendor-docs.mjs

# Retake docs/page.png (the README's screenshot) with the browser test that draws it.
screenshot: system-deps venv
	TURNWIRE_DOCS_SCREENSHOT=1 $(BIN)/python -m pytest -q tests/browser/test_page_screenshot.py

test: system-deps venv node-deps
	$(BIN)/ruff check --no-cache src tests bench examples
	$(BIN)/ruff format --check src tests bench examples
	$(BIN)/mypy
	$(BIN)/python -m pytest

lint: venv
	$(BIN)/ruff check --no-cache src tests bench examples
	$(BIN)/ruff format --check src tests bench examples
	$(BIN)/mypy

bench: venv
	$(MAKE) -C bench all

clean:
	rm -rf $(VENV) $(NODE_DIR)/node_modules $(WEB_DIR)/node_modules .pytest_cache .hypothesis test-artifacts
