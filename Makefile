# Entry points for people and CI; scripts/ holds the parts that need a shell.

SWIFT ?= swift
# Which build the activation file points at: debug or release.
CONFIG ?= debug
# CI builds with warnings as errors; a local build only shows them.
SWIFTFLAGS ?= $(if $(CI),-Xswiftc -warnings-as-errors)
RELEASEFLAGS = -c release --static-swift-stdlib

SERVICE_DIR := $(CURDIR)/.build/chime-services
SERVICE_FILE := $(SERVICE_DIR)/io.github.chime.Chime.service
SERVICE_TEMPLATE := dbus/io.github.chime.Chime.service.in

.PHONY: all deps build release services test demo bench clean

all: build

deps:
	scripts/deps.sh build

build: deps
	$(SWIFT) build $(SWIFTFLAGS)
	$(MAKE) --no-print-directory services CONFIG=debug

release: deps
	$(SWIFT) build $(RELEASEFLAGS) $(SWIFTFLAGS)
	$(MAKE) --no-print-directory services CONFIG=release

# The bus reads Exec= literally, so it gets the absolute path of this
# checkout's chimed. Regenerated every time: CONFIG may differ from last run.
services:
	@bin=$$($(SWIFT) build --show-bin-path $(if $(filter release,$(CONFIG)),$(RELEASEFLAGS))) && \
	mkdir -p $(SERVICE_DIR) && \
	sed "/^Exec=/s|@CHIMED@|$$bin/chimed|" $(SERVICE_TEMPLATE) >$(SERVICE_FILE).tmp && \
	mv $(SERVICE_FILE).tmp $(SERVICE_FILE)

test:
	scripts/deps.sh test
	$(SWIFT) build --build-tests $(SWIFTFLAGS)
	CHIME_BIN_DIR="$$($(SWIFT) build --show-bin-path)" $(SWIFT) test --skip-build

demo:
	scripts/deps.sh demo
	$(MAKE) --no-print-directory build
	CHIME_BIN_DIR="$$($(SWIFT) build --show-bin-path)" scripts/demo.sh

bench:
	scripts/deps.sh bench
	$(MAKE) --no-print-directory release
	CHIME_BIN_DIR="$$($(SWIFT) build --show-bin-path $(RELEASEFLAGS))" scripts/bench.sh

clean:
	rm -rf .build
