# kapi: `make run` installs, builds and starts; `make test` installs, builds and runs every test.
SHELL := /bin/bash
ARGS ?=
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: run test build install deps etcd python-client bench typecheck clean

run: build
	node dist/main.js $(ARGS)

test: build
	npm run typecheck
	npx jest --ci

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
