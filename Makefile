# debugpy-guard: `make demo` runs the main job, `make test` runs every test.
GO     ?= go
BIN    := bin/debugpy-guard
SUDO   := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all build test demo bench deps vet clean

all: build

build:
	$(GO) build -trimpath -o $(BIN) ./cmd/debugpy-guard

# deps installs debugpy (Debian's python3-debugpy) when no Python on this
# machine can import it: the tests and the demo talk to a real debugpy.
deps:
	@for p in python3 python /usr/bin/python3; do \
	  if command -v $$p >/dev/null 2>&1 && $$p -c 'import debugpy' 2>/dev/null; then \
	    echo "debugpy: $$(command -v $$p) has it"; exit 0; fi; done; \
	echo "debugpy: no Python can import it; installing python3-debugpy"; \
	$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq python3-debugpy

vet:
	$(GO) vet ./...

test: deps vet
	$(GO) test -race -count=1 -timeout 12m ./...

demo: deps build
	./$(BIN) demo

# bench: figures go in docs/PERFORMANCE.md with the machine and this command.
bench: deps
	$(GO) test -run '^$$' -bench . -benchtime 40x -count 5 ./...

clean:
	rm -rf bin
