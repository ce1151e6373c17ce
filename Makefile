# kapi: `make run` installs, builds and starts (TLS on :6443, data/admin.kubeconfig for kubectl); `make test` installs, builds and runs every test.
SHELL := /bin/bash
ARGS ?=
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: run test test-suite build checked-build build-step typecheck-step eslint-step import-cycles-step format-check-step lts-node install deps etcd python-client bench typecheck lint format clean ci test-lts test-lts-full test-sample compose-config

# The second Node line CI runs the suite on, from the npm registry's `node` package (no system install).
LTS_NODE ?= 22
# Jest workers: most tests wait on etcd and server processes, so three share two cores well; the
# fault tests, which measure latencies, two.
JEST_WORKERS ?= 3
FAULT_WORKERS ?= 2
# The build and the static checks run side by side (see checked-build).
CHECK_JOBS ?= 4

# The whole suite, under the Node that $(1) runs.
define run-suite
	$(1) node_modules/jest/bin/jest.js --ci --selectProjects unit integration e2e security -w $(JEST_WORKERS)
	$(1) node_modules/jest/bin/jest.js --ci --selectProjects fault -w $(FAULT_WORKERS)
endef

# What this machine's Node runs in `make test`: the projects that run kapi's code under that Node
# in the test process (unit; integration, an in-process server over real etcd) and the security
# attacks on server processes started by it. The e2e and fault projects drive server processes
# from outside with kubectl and signals, which the whole suite on Node $(LTS_NODE) covers (it runs
# the main line about 15 % faster than Debian's Node 20); `make test-suite` runs them on this Node.
define run-lts-suite
	$(1) node_modules/jest/bin/jest.js --ci --selectProjects unit integration security -w $(JEST_WORKERS)
endef

run: build
	node dist/main.js $(ARGS)

# Everything: the whole suite on Node $(LTS_NODE), its in-process part again on this machine's Node,
# compose files, and the packed package in a fresh project. `.ci/run` calls this. The Node
# $(LTS_NODE) download waits on the network while the build and checks run.
test: CHECKED_BUILD_STEPS += lts-node
test: checked-build compose-config
	$(call run-suite,npx -y -p node@$(LTS_NODE) node)
	npm run test:sample
	$(call run-lts-suite,node)

test-suite: checked-build
	$(call run-suite,node)

ci: test

test-lts: build python-client
	$(call run-lts-suite,npx -y -p node@$(LTS_NODE) node)

# The build, the typecheck, the lint (eslint and the import-cycle check) and the format check at once:
# each is one single-threaded node process (tsc, typed eslint, prettier), so on two cores they
# take about half as long as one after another. Each one's output is printed when it ends.
CHECKED_BUILD_STEPS = build-step typecheck-step eslint-step import-cycles-step format-check-step
checked-build: install
	$(MAKE) --no-print-directory -j$(CHECK_JOBS) --output-sync=target $(CHECKED_BUILD_STEPS)

build-step:
	npm run build
typecheck-step:
	npm run typecheck
eslint-step:
	npm run lint:eslint
import-cycles-step:
	npm run lint:cycles
format-check-step:
	npm run format:check
lts-node:
	npx -y -p node@$(LTS_NODE) node --version

test-lts-full: build python-client
	$(call run-suite,npx -y -p node@$(LTS_NODE) node)

test-sample: build
	npm run test:sample

# `config` needs no engine: the compose plugin where there is one, else Debian's docker-compose (1.29).
compose-config:
	@if docker compose version >/dev/null 2>&1; then compose="docker compose"; \
	elif command -v docker-compose >/dev/null 2>&1; then compose=docker-compose; \
	else echo "installing Debian's docker-compose"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends docker-compose >/dev/null; \
		compose=docker-compose; fi; \
	for f in docker-compose.yml docker-compose.ha.yml; do $$compose -f $$f config -q || exit 1; echo "$$f: valid ($$compose)"; done
	@if command -v systemd-analyze >/dev/null 2>&1; then systemd-analyze verify deploy/systemd/kapi.service && echo "deploy/systemd/kapi.service: valid"; \
	else echo "NOT CHECKED: deploy/systemd/kapi.service (no systemd-analyze on this machine)"; fi

bench: build
	npm run bench

build: install
	npm run build

install: deps etcd python-client

deps: node_modules/.package-lock.json

node_modules/.package-lock.json: package.json package-lock.json
	npm install --no-audit --no-fund
	@touch $@

# Debian's etcd-server, unless an etcd binary is already on PATH.
etcd:
	@command -v etcd >/dev/null 2>&1 || { \
		echo "installing Debian's etcd-server"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends etcd-server >/dev/null; \
		$(SUDO) systemctl disable --now etcd >/dev/null 2>&1 || true; \
	}
	@command -v etcd >/dev/null

# Debian's python3-kubernetes: the official Python client, which test/e2e/python-client.test.ts drives.
python-client:
	@/usr/bin/python3 -c 'import kubernetes' >/dev/null 2>&1 || { \
		echo "installing Debian's python3-kubernetes"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends python3-kubernetes >/dev/null; \
	}

typecheck: install
	npm run typecheck

lint: install
	npm run lint

# Rewrites the sources in prettier's style; `make test` checks it (npm run format:check).
format: install
	npm run format

clean:
	rm -rf dist dist-test
