# kapi: `make run` installs, builds and starts (TLS on :6443, data/admin.kubeconfig for kubectl); `make test` installs, builds and runs every test.
SHELL := /bin/bash
ARGS ?=
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: run test test-suite build install deps etcd python-client bench typecheck clean ci test-lts test-sample compose-config

# The second Node line CI runs on, from the npm registry's `node` package (no system install).
LTS_NODE ?= 22
# What runs on it: every unit test, and the e2e tests of start-up, logs, client-node and kapi/testing.
LTS_TESTS ?= src/ 'test/e2e/(startup|logging|client-node|testing-library)\.test\.ts'

run: build
	node dist/main.js $(ARGS)

# Everything: the suite on this machine's Node, compose files, the packed package in a fresh
# project, and the unit + e2e subset on Node $(LTS_NODE). `.ci/run` calls this.
test: test-suite compose-config test-sample test-lts

test-suite: build python-client
	npm run typecheck
	npx jest --ci

ci: test

test-lts: build
	npx -y -p node@$(LTS_NODE) node node_modules/jest/bin/jest.js --ci --selectProjects unit e2e -- $(LTS_TESTS)

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

clean:
	rm -rf dist dist-test
