# Rebalance: the two commands of the README are `make book` and `make test`.
# Everything else here is a step they call.  The Makefile creates its own virtual environment (.venv)
# with the dependencies of pyproject.toml at the exact versions of constraints.txt; nothing is installed outside the project folder
# except, on Debian when run as root, the `chromium` package for the browser test and, for the PDF edition,
# `poppler-utils` (its test renders pages), `fonts-dejavu-core` and `fonts-wqy-microhei` (the glossary's Chinese terms).

SHELL        := /bin/bash
PYTHON       ?= python3
VENV         := .venv
BIN          := $(VENV)/bin
STAMP        := $(VENV)/.installed
VECTORS      ?= kafka-vectors
CHAPTERS_MD  := $(sort $(wildcard chapters/*.md))
CHAPTERS_NB  := $(CHAPTERS_MD:.md=.ipynb)
CHROMIUM     ?= /usr/bin/chromium
PORT         ?= 8000
JUPYTER_PORT ?= 0
LIVE         ?= 1
UV_VERSION   := 0.13.9
export PYTHONHASHSEED := 0

.PHONY: help setup java theme chromium chapters chapter site book serve lab test test-fast conform vectors vectors-check bench clean pdf pdf-tools

help:
	@echo "make book    - set up, execute the chapters whose text changed (EXECUTE=all: every one), build the PDF and the site"
	@echo "make test    - set up and run every test (unit, vectors, notebooks, pairing, site in Chromium)"
	@echo "make pdf     - build the PDF edition (_build/exports/rebalance.pdf)"
	@echo "make lab     - open the chapters in JupyterLab"
	@echo "make serve   - serve the built site on http://127.0.0.1:$(PORT)/ with a local Jupyter kernel (live pages; LIVE=0: static only)"
	@echo "make bench   - run the benchmarks and print their figures"
	@echo "make vectors - recompute kafka-vectors/ with Kafka's own classes (make vectors-check: compare only)"

# ---- environment -------------------------------------------------------------------------------
$(STAMP): pyproject.toml constraints.txt
	@command -v $(PYTHON) >/dev/null || { echo "Python 3.10+ is needed ($(PYTHON) not found)"; exit 1; }
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@# uv installs the same pinned set (compiled to bytecode, as pip does) in three quarters of pip's time; pip
	@# when uv cannot be had or fails
	@if $(BIN)/python -m pip install --quiet "uv==$(UV_VERSION)" 2>/dev/null && \
	    $(BIN)/python -m uv pip install --quiet --compile-bytecode --python $(BIN)/python -c constraints.txt -e ".[book,test]"; then \
	  echo "installed with uv $(UV_VERSION): the dependencies at constraints.txt's versions"; \
	else \
	  $(BIN)/python -m pip install --quiet --upgrade pip && \
	  $(BIN)/python -m pip install --quiet -c constraints.txt -e ".[book,test]"; \
	fi
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 --display-name "Python 3" >/dev/null
	@touch $(STAMP)

# The package's own modules compiled to bytecode (an editable install leaves them as source; a process that imports
# them under PYTHONDONTWRITEBYTECODE would compile them again each time): a few seconds once, then only what changed.
setup: $(STAMP) java
	@$(BIN)/python -m compileall -q src >/dev/null
	@$(BIN)/python -c "import rebalance, pyspark; print('environment ready: rebalance', rebalance.__version__, '| pyspark', pyspark.__version__)"
	@$(BIN)/python -c "from rebalance.spark.session import find_java; j = find_java(); print('java:', j or 'MISSING (see README: Java)')"

# The book's Java module (java/): Kafka's jars from Maven Central at the pinned release (java/pom.xml's
# kafka.version, = rebalance.KAFKA_VERSION) and the oracle compiled against them.  Needs Java 17+ and Maven.
java:
	@bash java/build.sh

theme:
	@bash site/setup.sh

chromium:
	@if [ ! -x "$(CHROMIUM)" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "installing Debian's chromium for the browser test"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null; \
	  else \
	    echo "The browser test needs Chromium at $(CHROMIUM) (Debian: sudo apt-get install chromium); set CHROMIUM=/path"; exit 1; \
	  fi; \
	fi

# The PDF edition's Debian packages: poppler-utils (pdftoppm, pdfinfo, pdfimages for its test), a sans font
# and a CJK font (the glossary's Chinese terms).
PDF_DEBS := poppler-utils fonts-dejavu-core fonts-wqy-microhei
pdf-tools:
	@missing=""; command -v pdftoppm >/dev/null || missing="poppler-utils"; \
	  [ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || missing="$$missing fonts-dejavu-core"; \
	  [ -d /usr/share/fonts/truetype/wqy ] || missing="$$missing fonts-wqy-microhei"; \
	  if [ -n "$$missing" ]; then \
	    if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	      echo "installing Debian's$$missing for the PDF edition"; \
	      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	    else \
	      echo "The PDF edition wants Debian's $(PDF_DEBS) (sudo apt-get install$$missing)"; \
	    fi; \
	  fi

# ---- chapters ----------------------------------------------------------------------------------
# Re-execute one chapter and refresh its pair: make chapter CH=chapters/02-range-assignor.md
chapter: $(STAMP)
	@test -n "$(CH)" || { echo "usage: make chapter CH=chapters/NN-name.md"; exit 1; }
	$(BIN)/jupytext --to ipynb --execute --set-kernel python3 "$(CH)"
	$(BIN)/jupytext --sync "$(CH)" >/dev/null

# The chapters whose stored notebook is not the executed twin of their text (site/stale_chapters.py: text changed,
# notebook missing or unexecuted) are executed, each in its own kernel, JOBS at a time (default: one per core), the
# longest first; the chapters are independent (each real Kafka cluster, Spark session and mock cluster takes free
# ports).  The others keep their stored outputs, which make test proves current (nbval re-executes every chapter).
# EXECUTE=all executes every chapter.
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
EXECUTE ?= changed
# (named by slug, not number: real clients, then the lab at scale)
LONGEST_CHAPTERS := $(filter %-real-clients.md,$(CHAPTERS_MD)) $(filter %-lab-at-scale.md,$(CHAPTERS_MD))
CHAPTERS_LONGEST_FIRST := $(LONGEST_CHAPTERS) $(filter-out $(LONGEST_CHAPTERS),$(CHAPTERS_MD))
chapters: $(STAMP)
	@$(BIN)/python site/stale_chapters.py $(if $(filter all,$(EXECUTE)),--all,) $(CHAPTERS_LONGEST_FIRST) | \
	  xargs -r -P $(JOBS) -I{} sh -c \
	  'echo "executing {}"; $(BIN)/jupytext --to ipynb --execute --set-kernel python3 "{}" >/dev/null && \
	   $(BIN)/jupytext --sync "{}" >/dev/null || { echo "FAILED: {}"; exit 1; }' || \
	  { echo "a chapter failed to execute (see FAILED above; make chapter CH=... shows its error)"; exit 1; }

# ---- the book site (offline: the site template is assembled from npm packages by site/setup.sh) ---
site: $(STAMP) theme
	@PATH="$(CURDIR)/$(BIN):$$PATH" bash site/build.sh

# ---- the PDF edition (offline: Typst from the typst wheel, the project's template in site/pdf) ----------
pdf: $(STAMP) pdf-tools
	@PATH="$(CURDIR)/$(BIN):$$PATH" bash site/pdf/build.sh

book: setup chapters pdf site
	@echo
	@echo "The book is built in $(CURDIR)/_build/html, its PDF edition in $(CURDIR)/_build/exports/rebalance.pdf"
	@echo "Read it: run 'make serve' and open the one-time link it prints (the pages need a web server)"
	@echo "To work through the chapters interactively: make lab"

# The built site plus a Jupyter server for its live pages, both on 127.0.0.1 (site/serve.py; Ctrl-C stops both).
# JUPYTER_PORT=0 picks a free port; the token is random at every start.  LIVE=0 serves the static site only.
serve: $(STAMP)
	@test -f _build/html/index.html || { echo "no built site in _build/html: run 'make book' (or 'make site') first"; exit 1; }
	@$(BIN)/python site/serve.py --port $(PORT) --jupyter-port $(JUPYTER_PORT) $(if $(filter 0,$(LIVE)),--no-kernel,)

# jupyterlab-myst (the book extra) renders the chapters' exercises, solutions, admonitions, citations and
# cross-references in the notebooks.  Jupyter refuses to run as root without --allow-root.
lab: $(STAMP)
	$(BIN)/jupyter lab $(if $(filter 0,$(shell id -u)),--allow-root) chapters/

# ---- tests -------------------------------------------------------------------------------------
# The vectors are committed in kafka-vectors/ (facts recorded from Kafka's own classes); VECTORS=DIR replays another copy.
conform: $(STAMP)
	@test -d "$(VECTORS)" || { echo "vectors folder $(VECTORS) missing"; exit 1; }
	@$(BIN)/python -m rebalance conform -v $(VECTORS)/*.jsonl | tail -n 25; test "$${PIPESTATUS[0]}" = 0

# Kafka's own classes recompute every committed vector: vectors-check fails on any difference, vectors rewrites
# the outputs (AdminUtils lines on the last release that has it, see rebalance.versions).
vectors-check: $(STAMP) java
	@test -d "$(VECTORS)" || { echo "vectors folder $(VECTORS) missing"; exit 1; }
	@$(BIN)/python -m rebalance.kafka.oracle check $(VECTORS)/*.jsonl
	@$(BIN)/python -m rebalance.kafka.releases check $(VECTORS)

vectors: $(STAMP) java
	$(BIN)/python -m rebalance.kafka.oracle rewrite $(VECTORS)/*.jsonl
	$(BIN)/python -m rebalance.kafka.releases write $(VECTORS)

# tests/ includes the type check (tests/test_typecheck.py: mypy, configured in pyproject.toml) and the
# docstring examples (tests/test_doctests.py), so both run here and in test-fast.
# The set-up's three parts (the Python environment, the Java module, Chromium) run side by side.
# tests/run_all.py runs three workers side by side once the environment is set up, over one queue of jobs, longest
# first (each test folder, tests/kafka split into its clocked and its clock-free files, and each chapter under nbval);
# one worker first runs conform, vectors-check, the PDF and the site, then the tests that read them (tests/book,
# tests/site).  At most two jobs that play real clients against a scenario's clock run at once, and every other job
# runs under nice.  Most of the work waits on JVMs, brokers, Spark, kernels and scenario clocks, so three workers
# keep 2 cores busy.  Logs: _build/test-logs/; any job failing fails.
TESTS ?= tests
TEST_ENV = REBALANCE_VECTORS="$(abspath $(VECTORS))" REBALANCE_SITE_DIR="$(CURDIR)/_build/html" CHROMIUM="$(CHROMIUM)" \
	REBALANCE_PDF="$(CURDIR)/_build/exports/rebalance.pdf" PATH="$(CURDIR)/$(BIN):$$PATH"
test:
	@$(MAKE) --no-print-directory -j3 setup chromium
	@mkdir -p _build; \
	$(TEST_ENV) $(BIN)/python tests/run_all.py --python $(BIN)/python --make "$(MAKE)" --tests "$(TESTS)" $(CHAPTERS_NB)

test-fast: $(STAMP)
	REBALANCE_VECTORS="$(abspath $(VECTORS))" $(BIN)/python -m pytest tests -q -m "not browser and not spark and not pdf"

bench: $(STAMP)
	@for b in benchmarks/bench_*.py; do echo "== $$b"; $(BIN)/python "$$b" || exit 1; done

clean:
	rm -rf _build .pytest_cache
