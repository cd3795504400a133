# debugpy-guard: `make demo` runs the main job, `make test` runs every test.
GO     ?= go
BIN    := bin/debugpy-guard
SUDO   := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all build test test-short cover demo bench bench-tslist deps opa vet lint clean policies check-policies dist check-dist

# opa (OPA's command) goes where go install puts commands, which the
# recipes here find on PATH.
OPA_VERSION := v1.22.4
GOBIN_DIR   := $(shell $(GO) env GOPATH)/bin
export PATH := $(GOBIN_DIR):$(PATH)

WASMBUILD = GOOS=wasip1 GOARCH=wasm $(GO) build -buildmode=c-shared -trimpath -buildvcs=false

all: build

build:
	$(GO) build -trimpath -o $(BIN) ./cmd/debugpy-guard

# deps installs debugpy (Debian's python3-debugpy) when no Python on this
# machine can import it, gdb (which attach by PID needs), wabt (wat2wasm,
# which assembles the hostile WAT modules of the plugins tests), clang and
# lld (the C policy template), PyYAML, pytest, pandas and tabulate
# (without what pandas recommends: redact's readings are checked against
# what they write), cryptography, jwcrypto, PyCryptodome, python-rsa and
# PyNaCl (a private key's numbers and a JWK as a program holds them), mnemonic (a
# wallet's seed phrase), the kubernetes client (a Secret's data), xmltodict (XML's records as a program reads
# them), Debian's rustc with its wasm32 standard library (the Rust
# one), the AssemblyScript compiler from npm and OPA's
# opa (the Rego one, and the OPA fixtures' check) when they are missing:
# the tests talk to a real debugpy and run real WASM modules built from
# source. It also installs the reference TypeScript MCP client (npm ci in
# tools/testdata/tslist), which a test drives the binary with.
deps:
	@need=""; \
	for p in python3 python /usr/bin/python3; do \
	  if command -v $$p >/dev/null 2>&1 && $$p -c 'import debugpy' 2>/dev/null; then \
	    echo "debugpy: $$(command -v $$p) has it"; found=1; break; fi; done; \
	[ -n "$$found" ] || need="python3-debugpy"; \
	command -v gdb >/dev/null 2>&1 || need="$$need gdb"; \
	/usr/bin/python3 -c 'import yaml' 2>/dev/null || need="$$need python3-yaml"; \
	/usr/bin/python3 -c 'import pytest' 2>/dev/null || need="$$need python3-pytest"; \
	/usr/bin/python3 -c 'import structlog' 2>/dev/null || need="$$need python3-structlog"; \
	command -v jq >/dev/null 2>&1 || need="$$need jq"; \
	perl -MData::Dumper -e1 2>/dev/null || need="$$need perl"; \
	/usr/bin/python3 -c 'import sqlparse' 2>/dev/null || need="$$need python3-sqlparse"; \
	/usr/bin/python3 -c 'import sqlalchemy' 2>/dev/null || lean="$$lean python3-sqlalchemy"; \
	/usr/bin/python3 -c 'import pymysql' 2>/dev/null || lean="$$lean python3-pymysql"; \
	/usr/bin/python3 -c 'import oauthlib, werkzeug' 2>/dev/null || lean="$$lean python3-oauthlib python3-werkzeug"; \
	/usr/bin/python3 -c 'import pexpect' 2>/dev/null || lean="$$lean python3-pexpect"; \
	/usr/bin/python3 -c 'import cryptography, jwcrypto' 2>/dev/null || lean="$$lean python3-cryptography python3-jwcrypto"; \
	/usr/bin/python3 -c 'import Cryptodome, rsa, mnemonic, nacl' 2>/dev/null || lean="$$lean python3-pycryptodome python3-rsa python3-mnemonic python3-nacl"; \
	/usr/bin/python3 -c 'import kubernetes' 2>/dev/null || lean="$$lean python3-kubernetes"; \
	/usr/bin/python3 -c 'import xmltodict' 2>/dev/null || lean="$$lean python3-xmltodict"; \
	[ -x /usr/sbin/mariadbd ] && [ -x /usr/bin/my_print_defaults ] || lean="$$lean mariadb-server-core mariadb-client-core"; \
	/usr/bin/python3 -c 'import pandas, tabulate' 2>/dev/null || lean="$$lean python3-pandas python3-tabulate"; \
	command -v wat2wasm >/dev/null 2>&1 || need="$$need wabt"; \
	command -v clang >/dev/null 2>&1 || need="$$need clang"; \
	command -v wasm-ld >/dev/null 2>&1 || need="$$need lld"; \
	ls /usr/lib/rustlib/wasm32-unknown-unknown/lib/libcore-*.rlib >/dev/null 2>&1 || need="$$need rustc libstd-rust-dev-wasm32"; \
	command -v npm >/dev/null 2>&1 || need="$$need nodejs npm"; \
	if [ -n "$$need$$lean" ]; then echo "installing:$$need $$lean"; $(SUDO) apt-get update -qq || exit 1; fi; \
	if [ -n "$$need" ]; then DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$need || exit 1; fi; \
	if [ -n "$$lean" ]; then DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$lean || exit 1; fi; \
	command -v asc >/dev/null 2>&1 || { echo "installing: assemblyscript (npm)"; $(SUDO) npm install -g -s assemblyscript@0.28.20; }
	@[ -f tools/testdata/tslist/node_modules/@modelcontextprotocol/sdk/package.json ] || { echo "installing: the reference TypeScript MCP client (npm ci in tools/testdata/tslist)"; \
	  cd tools/testdata/tslist && npm ci -s --no-audit --no-fund; }
	@$(MAKE) --no-print-directory opa

# opa installs OPA's command from the Go module proxy when none is on PATH
# (it builds Rego policies to WebAssembly: policy build, the OPA fixtures).
opa:
	@command -v opa >/dev/null 2>&1 || { echo "installing: opa $(OPA_VERSION) (go install, into $(GOBIN_DIR))"; \
	  GOBIN=$(GOBIN_DIR) $(GO) install github.com/open-policy-agent/opa@$(OPA_VERSION); }

vet:
	$(GO) vet ./...

# lint runs gofmt -l on every package and staticcheck (from the Go module
# proxy, into $(GOBIN_DIR)) with its default checks.
STATICCHECK_VERSION := v0.8.2
lint:
	@[ -x $(GOBIN_DIR)/staticcheck ] && $(GOBIN_DIR)/staticcheck -version | grep -q $(STATICCHECK_VERSION:v%=%) || \
	  { echo "installing: staticcheck $(STATICCHECK_VERSION)"; GOBIN=$(GOBIN_DIR) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION); }
	@unformatted=$$(gofmt -l $$($(GO) list -f '{{.Dir}}' ./...)); [ -z "$$unformatted" ] || { echo "gofmt -w these: $$unformatted"; exit 1; }
	$(GOBIN_DIR)/staticcheck ./...

# policies rebuilds the built-in module's committed .wasm from its sources
# (the five built-in policies share one module: policies/builtin/main.go).
policies:
	$(WASMBUILD) -o policies/builtin.wasm ./policies/builtin

# check-policies rebuilds it aside and fails when the committed .wasm is
# stale (the build is reproducible: same source and toolchain, same bytes).
check-policies:
	@tmp=$$(mktemp -d); trap 'rm -rf $$tmp' EXIT; \
	$(WASMBUILD) -o $$tmp/builtin.wasm ./policies/builtin || exit 1; \
	cmp -s $$tmp/builtin.wasm policies/builtin.wasm || { echo "policies/builtin.wasm is stale: run make policies and commit it"; exit 1; }; \
	echo "policies: the committed builtin.wasm matches its sources"

# test runs every test, and the guest SDK's again in WebAssembly (under
# Node.js, Go's own js/wasm runner: the SDK's scans are assembly there,
# held to their Go versions by TestScanAgrees); fuzzes briefly the policy
# gate with malformed and hostile arguments, the expression parser (alone,
# and against CPython's), redact's readings of text, the host's
# percent-decoded reading of a result (and the decoding, against net/url),
# the fuel rewriter, the OPA
# memory rewrite, the config parser and audit verify (their seed corpora
# also run in the plain go test), each for a number of inputs rather than
# a time: Go's fuzzer can fail a time-bounded run with a bare "context
# deadline exceeded" when its workers are slow to stop on a loaded machine
# (golang/go#51484; CI saw it once); runs the built-in policies' case
# files, and the WAT example's, through `debugpy-guard policy test` as a
# policy author would. The counts keep it under CI's 15 minutes on a
# 2-core machine (a loaded run took 15m19s on 2026-12-05: the five longest
# fuzz runs were cut by a third to a half; another took 16m23s with a new
# reading's tests, and the fifteen longest were cut by about half).
test: deps vet lint check-policies build
	$(GO) test -race -count=1 -timeout 12m ./...
	GOOS=js GOARCH=wasm $(GO) test -count=1 -exec $$($(GO) env GOROOT)/lib/wasm/go_js_wasm_exec ./plugins/sdk
	$(GO) test -run '^$$' -fuzz FuzzGate -fuzztime 20000x -fuzzminimizetime 20x ./tools
	$(GO) test -run '^$$' -fuzz FuzzOneReading -fuzztime 50000x -fuzzminimizetime 20x ./tools
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime 250000x -fuzzminimizetime 20x ./policies/expressions
	$(GO) test -run '^$$' -fuzz FuzzInstrument -fuzztime 100000x -fuzzminimizetime 20x ./plugins/internal/fuel
	$(GO) test -run '^$$' -fuzz FuzzDefineMemory -fuzztime 120000x -fuzzminimizetime 20x ./plugins/internal/opa
	$(GO) test -run '^$$' -fuzz FuzzParseConfig -fuzztime 50000x -fuzzminimizetime 20x ./engine
	$(GO) test -run '^$$' -fuzz FuzzVerify -fuzztime 250000x -fuzzminimizetime 20x ./engine/audit
	$(GO) test -run '^$$' -fuzz FuzzWriterGoesOn -fuzztime 30000x -fuzzminimizetime 20x ./engine/audit
	$(GO) test -run '^$$' -fuzz FuzzScan -fuzztime 300000x -fuzzminimizetime 20x ./plugins/sdk
	$(GO) test -run '^$$' -fuzz FuzzMaskAligned -fuzztime 200000x -fuzzminimizetime 20x ./policies/redact
	$(GO) test -run '^$$' -fuzz FuzzSplitMasked -fuzztime 150000x -fuzzminimizetime 20x ./policies/redact
	$(GO) test -run '^$$' -fuzz FuzzMaskNamedNeedsAName -fuzztime 150000x -fuzzminimizetime 20x ./policies/redact
	$(GO) test -run '^$$' -fuzz FuzzRequestIndex -fuzztime 200000x -fuzzminimizetime 20x ./plugins/sdk
	$(GO) test -run '^$$' -fuzz FuzzReadsAsEncodingJSON -fuzztime 50000x -fuzzminimizetime 20x ./plugins/sdk
	$(GO) test -run '^$$' -fuzz FuzzParserAgreesWithCPython -fuzztime 100000x -fuzzminimizetime 20x ./policies/expressions
	$(GO) test -run '^$$' -fuzz FuzzMaskPairs -fuzztime 60000x -fuzzminimizetime 20x ./policies/redact
	$(GO) test -run '^$$' -fuzz FuzzMaskKeyValues -fuzztime 100000x -fuzzminimizetime 20x ./policies/redact
	$(GO) test -run '^$$' -fuzz FuzzMaskNested -fuzztime 50000x -fuzzminimizetime 20x ./policies/redact
	$(GO) test -run '^$$' -fuzz FuzzMaskSource -fuzztime 100000x -fuzzminimizetime 20x ./policies/redact
	$(GO) test -run '^$$' -fuzz FuzzMaskAssignments -fuzztime 100000x -fuzzminimizetime 20x ./policies/redact
	$(GO) test -run '^$$' -fuzz FuzzMaskTables -fuzztime 100000x -fuzzminimizetime 20x ./policies/redact
	$(GO) test -run '^$$' -fuzz FuzzMaskCommands -fuzztime 100000x -fuzzminimizetime 20x ./policies/redact
	$(GO) test -run '^$$' -fuzz FuzzMaskCalls -fuzztime 100000x -fuzzminimizetime 20x ./policies/redact
	$(GO) test -run '^$$' -fuzz FuzzMaskHTMLTables -fuzztime 100000x -fuzzminimizetime 20x ./policies/redact
	$(GO) test -run '^$$' -fuzz FuzzMaskAssertions -fuzztime 100000x -fuzzminimizetime 20x ./policies/redact
	$(GO) test -run '^$$' -fuzz FuzzMaskSQL -fuzztime 100000x -fuzzminimizetime 20x ./policies/redact
	$(GO) test -run '^$$' -fuzz FuzzEscapes -fuzztime 30000x -fuzzminimizetime 20x ./policies/redact
	$(GO) test -run '^$$' -fuzz FuzzMaskRecords -fuzztime 30000x -fuzzminimizetime 20x ./policies/redact
	$(GO) test -run '^$$' -fuzz FuzzMaskElements -fuzztime 30000x -fuzzminimizetime 20x ./policies/redact
	$(GO) test -run '^$$' -fuzz FuzzMaskWire -fuzztime 30000x -fuzzminimizetime 20x ./policies/redact
	$(GO) test -run '^$$' -fuzz FuzzPickleSecrets -fuzztime 30000x -fuzzminimizetime 20x ./policies/redact
	$(GO) test -run '^$$' -fuzz FuzzMaskTableRows -fuzztime 30000x -fuzzminimizetime 20x ./policies/redact
	$(GO) test -run '^$$' -fuzz FuzzMaskIdentified -fuzztime 30000x -fuzzminimizetime 20x ./policies/redact
	$(GO) test -run '^$$' -fuzz FuzzMaskLogins -fuzztime 30000x -fuzzminimizetime 20x ./policies/redact
	$(GO) test -run '^$$' -fuzz FuzzMaskQueryCodes -fuzztime 20000x -fuzzminimizetime 20x ./policies/redact
	$(GO) test -run '^$$' -fuzz FuzzPipedSecrets -fuzztime 20000x -fuzzminimizetime 20x ./policies/redact
	$(GO) test -run '^$$' -fuzz FuzzMentions -fuzztime 100000x -fuzzminimizetime 20x ./policies/secrets
	$(GO) test -run '^$$' -fuzz FuzzPercentSpans -fuzztime 30000x -fuzzminimizetime 20x ./plugins
	$(GO) test -run '^$$' -fuzz FuzzIndex -fuzztime 50000x -fuzzminimizetime 20x ./plugins
	$(GO) test -run '^$$' -fuzz FuzzDecode -fuzztime 100000x -fuzzminimizetime 20x ./internal/percent
	$(GO) test -run '^$$' -fuzz FuzzAppendString -fuzztime 100000x -fuzzminimizetime 20x ./plugins/abi
	$(GO) test -run '^$$' -fuzz FuzzRequest -fuzztime 100000x -fuzzminimizetime 20x ./plugins/abi
	$(GO) test -run '^$$' -fuzz FuzzQuickResponse -fuzztime 100000x -fuzzminimizetime 20x ./plugins/abi
	./$(BIN) policy test policies/testdata/cases
	@$(MAKE) --no-print-directory check-dist
	@tmp=$$(mktemp -d); trap 'rm -rf $$tmp' EXIT; \
	wat2wasm plugins/examples/wat/policy.wat -o $$tmp/policy.wasm && \
	./$(BIN) policy test --module $$tmp/policy.wasm plugins/examples/wat/cases.toml

# test-short is the fast tier: go test -short skips what starts the server,
# debugpy or a policy toolchain (about 35 s on two cores); make test runs
# everything.
test-short:
	$(GO) test -short -count=1 ./...

# cover runs the full tier with coverage: the unit tests' and the server
# binary's (built -cover by the cmd tests when SERVER_GOCOVERDIR is set) go into
# one directory, and it reports each package, and the gate's functions.
# The packages make cover reports: the security path (engine, approval,
# tools, plugins and the wire format), dap, and the built-in policies.
M := github.com/debugpy-guard/debugpy-guard
COVERPKGS := $(M)/engine,$(M)/engine/approval,$(M)/tools,$(M)/plugins,$(M)/plugins/abi,$(M)/plugins/sdk,$(M)/dap,$(M)/policies/category,$(M)/policies/expressions,$(M)/policies/ratelimit,$(M)/policies/redact,$(M)/policies/targets,$(M)/policies/settings,$(M)/policies/secrets

cover: deps build
	@tmp=$$(mktemp -d); trap 'rm -rf $$tmp' EXIT; \
	SERVER_GOCOVERDIR=$$tmp $(GO) test -count=1 -timeout 12m -cover -coverpkg=github.com/debugpy-guard/debugpy-guard/... ./... -args -test.gocoverdir=$$tmp >/dev/null && \
	$(GO) tool covdata percent -i=$$tmp -pkg=$(COVERPKGS) && \
	$(GO) tool covdata textfmt -i=$$tmp -o $$tmp/cover.txt && \
	$(GO) tool cover -func=$$tmp/cover.txt | grep -E '/(engine/gate|engine/approval/[a-z]+|tools/gate)\.go' 

demo: deps build
	./$(BIN) demo

# bench: figures go in docs/PERFORMANCE.md with the machine and this command.
bench: deps
	$(GO) test -run '^$$' -bench . -benchtime 40x -count 5 ./...

# dist writes dist/debugpy-guard-VERSION.tar.gz, what an operator carries
# to a machine with no network: the source of HEAD, its dependencies
# vendored (vendor/), bin/debugpy-guard built from exactly that with the
# network and the module cache shut off, and SHA256SUMS of every file.
# README.md, "With no network", says how to use it.
OFFLINE = GOFLAGS=-mod=vendor GOPROXY=off GOTOOLCHAIN=local GOWORK=off
dist: build
	@v=$$(./$(BIN) version | cut -d' ' -f2); name=debugpy-guard-$$v; \
	tmp=$$(mktemp -d); trap 'rm -rf $$tmp' EXIT; \
	git archive --prefix=$$name/ HEAD | tar -x -C $$tmp && \
	(cd $$tmp/$$name && $(GO) mod vendor && \
	  $(OFFLINE) GOMODCACHE=$$tmp/empty-modcache $(GO) build -trimpath -buildvcs=false -o bin/debugpy-guard ./cmd/debugpy-guard && \
	  find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum > $$tmp/SHA256SUMS && mv $$tmp/SHA256SUMS .) && \
	mkdir -p dist && tar -C $$tmp -czf dist/$$name.tar.gz $$name && echo "wrote dist/$$name.tar.gz"

# check-dist unpacks the archive as an operator would, checks the sums, and
# builds it again with no network, an empty module cache and the local
# toolchain only: the same bytes as the binary it carries. make test runs it.
check-dist: dist
	@v=$$(./$(BIN) version | cut -d' ' -f2); name=debugpy-guard-$$v; \
	tmp=$$(mktemp -d); trap 'chmod -R u+w $$tmp; rm -rf $$tmp' EXIT; \
	tar -C $$tmp -xzf dist/$$name.tar.gz && cd $$tmp/$$name && \
	sha256sum --quiet -c SHA256SUMS && \
	$(OFFLINE) GOMODCACHE=$$tmp/empty-modcache $(GO) build -trimpath -buildvcs=false -o $$tmp/rebuilt ./cmd/debugpy-guard && \
	cmp -s bin/debugpy-guard $$tmp/rebuilt && ./bin/debugpy-guard version >/dev/null && \
	echo "dist: dist/$$name.tar.gz verifies and rebuilds offline to the same binary"

# bench-tslist times the reference TypeScript MCP client's tools/list
# against serve (it compiles every output schema): docs/PERFORMANCE.md.
bench-tslist: build
	cd tools/testdata/tslist && npm ci -s --no-audit --no-fund && \
	for i in 1 2 3 4 5; do node list.mjs $(CURDIR)/$(BIN) serve; done

clean:
	rm -rf bin dist tools/testdata/tslist/node_modules
