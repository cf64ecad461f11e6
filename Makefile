# Entry points for people and CI; scripts/ holds the parts that need a shell.

SWIFT ?= swift
# Which build the activation file points at: debug or release.
CONFIG ?= debug
# CI builds with warnings as errors; a local build only shows them.
SWIFTFLAGS ?= $(if $(CI),-Xswiftc -warnings-as-errors)
# Packed relative relocations (DT_RELR, linked by the toolchain's lld): the 88,000
# relocations of a static Swift binary fit in kilobytes instead of 2 MB, which each start
# no longer reads and chimed no longer keeps resident (measured: 2 MiB less RSS, 2.4 MB
# smaller). glibc runs such binaries from 2.36 on, and the binaries run where they are
# built: only when this machine's glibc and toolchain have both.
# The toolchain's folder: its lld, and the swiftc make bench builds its floors with.
SWIFT_BIN := $(dir $(shell command -v $(SWIFT)))
RELR := $(shell v=$$(getconf GNU_LIBC_VERSION 2>/dev/null | cut -d' ' -f2); \
	[ -n "$$v" ] && [ "$$(printf '%s\n' 2.36 "$$v" | sort -V | head -n1)" = 2.36 ] && \
	[ -x "$(SWIFT_BIN)ld.lld" ] && echo yes)
# How chime and chimed are linked, besides the static Swift runtime; make bench builds
# its Swift floors the same way. The release chime is linked fully static on top of this
# (Package.swift), and has no relocations to pack. The static runtime's link line exports every symbol of
# the binary (-export-dynamic): nothing loads a library that calls back into chime or
# chimed, so lld is told not to (gold cannot be): 0.9 MB smaller together, and
# `chimed --version` measured 0.5 ms shorter of its 9 ms. lld also folds functions whose
# code is identical and whose address nothing compares (--icf=safe): 20 kB less together.
# libstdc++, which the Swift runtime needs, from its archive: libstdc++.so.6 held 1 MiB of
# an idle chimed and most of the symbol relocations the dynamic loader did at each start,
# for 25 functions. The driver names -lstdc++ itself and lld prefers a shared library's
# definitions to an archive's, so a libstdc++.so of ours, a linker script naming the
# archive, is found first.
# -z now: the loader binds every library call at start, so that the table of their
# addresses is read-only before chimed reads any input (full RELRO, the bindnow of
# Debian's hardening, which lintian asks for): a memory error cannot redirect a call
# through it. The 400 more relocations at start are lost in the loader's noise
# (LD_DEBUG=statistics: about 0.1 ms either way).
CXX_ARCHIVE := $(shell $(CC) -print-file-name=libstdc++.a 2>/dev/null)
STATIC_CXX_DIR := $(CURDIR)/.build/static-libstdc++
STATIC_CXX := $(if $(filter /%,$(CXX_ARCHIVE)),$(STATIC_CXX_DIR)/libstdc++.so)
RELEASE_LINKFLAGS = $(if $(RELR),-use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs -Xlinker --no-export-dynamic -Xlinker --icf=safe) \
	$(if $(STATIC_CXX),-L$(STATIC_CXX_DIR)) -Xlinker -z -Xlinker now
# SwiftPM's run path ($ORIGIN) would make the loader look for libsqlite3, libm, libgcc_s
# and libc in the binary's own folder first, 22 failed lookups at each start, for
# libraries no build puts there.
RELEASEFLAGS = -c release --static-swift-stdlib --disable-local-rpath $(addprefix -Xswiftc ,$(RELEASE_LINKFLAGS))

# make install: where (PREFIX), and a staging root (DESTDIR) for packages and tests.
PREFIX ?= /usr/local
DESTDIR ?=

# The release binaries as files, so `make install` and `make deb` build only when a
# source changed, and `sudo make install` after `make release` runs no compiler as root.
# `make install` never runs sudo or apt itself: the build it may need only checks its
# Debian packages (deps.sh --check), and says what to run when one is missing.
RELEASE_DIR := .build/release
RELEASE_BINS := $(RELEASE_DIR)/chime $(RELEASE_DIR)/chimed
# Tests/TestSupport is a library target, so a release build compiles it too (warnings as errors).
SOURCES := Package.swift $(shell find Sources Benchmarks Tests/TestSupport -type f)
# Man pages and shell completions: chime's from the release chime's own definitions,
# chimed's from packaging/man with the build's date.
GEN_DIR := .build/chime-generated
GENERATED := $(GEN_DIR)/man/chime.1 $(GEN_DIR)/man/chimed.1 $(GEN_DIR)/completions/chime.bash \
	$(GEN_DIR)/completions/_chime $(GEN_DIR)/completions/chime.fish
# The date in the man pages and the package: the last commit's, so a rebuild of the same
# tree is identical.
RELEASE_DATE := $(shell git log -1 --format=%cs 2>/dev/null || date +%F)
INSTALL_ENV = PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" BIN_DIR="$(CURDIR)/$(RELEASE_DIR)" GEN_DIR="$(CURDIR)/$(GEN_DIR)"

SERVICE_DIR := $(CURDIR)/.build/chime-services
SERVICE_FILE := $(SERVICE_DIR)/io.github.chime.Chime.service
SERVICE_TEMPLATE := dbus/io.github.chime.Chime.service.in

# The compiled translations: the release build's are installed, the debug build's let
# the built binaries speak them (scripts/locale.sh).
LINGUAS := $(patsubst po/%.po,%,$(wildcard po/*.po))
RELEASE_CATALOGUES := $(LINGUAS:%=$(RELEASE_DIR)/locale/%/LC_MESSAGES/chime.mo)

.PHONY: all deps build release services generated api-xml pot locale install install-strip uninstall deb check test test-servers demo bench soak screenshot clean

all: build

deps:
	scripts/deps.sh build

build: deps
	$(SWIFT) build $(SWIFTFLAGS)
	$(MAKE) --no-print-directory services locale CONFIG=debug

# Everything `make install` installs, so that a `sudo make install` after it builds nothing.
release:
	scripts/deps.sh build
	$(MAKE) --no-print-directory $(RELEASE_BINS) $(GENERATED) $(RELEASE_CATALOGUES)
	$(MAKE) --no-print-directory services CONFIG=release

$(RELEASE_BINS) &: $(SOURCES) $(STATIC_CXX)
	scripts/deps.sh --check build
	$(SWIFT) build $(RELEASEFLAGS) $(SWIFTFLAGS)
	@touch $(RELEASE_BINS)

$(STATIC_CXX):
	@mkdir -p $(@D)
	echo 'INPUT($(CXX_ARCHIVE))' >$@

generated: $(GENERATED)

# After the binaries: .build/release is the link swift build makes, not a folder of ours.
$(RELEASE_CATALOGUES): $(RELEASE_DIR)/locale/%/LC_MESSAGES/chime.mo: po/%.po | $(RELEASE_BINS)
	scripts/locale.sh $(RELEASE_DIR)

# The debug build's catalogues (make build and make test make them).
locale:
	scripts/locale.sh "$$($(SWIFT) build --show-bin-path)"

# The template of Chime's messages, committed; a test checks it is up to date. Then
# `msgmerge --update po/LANG.po po/chime.pot` brings a translation up to date.
pot:
	scripts/pot.sh >po/chime.pot.tmp
	mv po/chime.pot.tmp po/chime.pot

$(GEN_DIR)/man/chime.1: $(RELEASE_DIR)/chime packaging/man/chime.1.tail
	$(SWIFT) build --product generate-manual
	@mkdir -p $(@D)
	"$$($(SWIFT) build --show-bin-path)/generate-manual" $< --date $(RELEASE_DATE) --output-directory $(@D)
	@# A blank line in mdoc is an error to groff -ww; the discussions' paragraph breaks are .Pp.
	sed -i 's/^$$/.Pp/' $@
	@# generate-manual ends with an EXIT STATUS section of its own (.Ex -std); chime's, and
	@# what the argument parser does not know (environment, files, the manual), are written
	@# by hand.
	sed -i '/^\.Sh "EXIT STATUS"$$/,$$d' $@
	cat packaging/man/chime.1.tail >>$@

# In the date form generate-manual gives chime.1.
$(GEN_DIR)/man/chimed.1: packaging/man/chimed.1.in
	@mkdir -p $(@D)
	sed "s/@DATE@/$$(LC_ALL=C date -d $(RELEASE_DATE) '+%B %-d, %Y')/" $< >$@.tmp && mv $@.tmp $@

$(GEN_DIR)/completions/chime.bash: $(RELEASE_DIR)/chime
	@mkdir -p $(@D)
	$< --generate-completion-script bash >$@.tmp && mv $@.tmp $@

$(GEN_DIR)/completions/_chime: $(RELEASE_DIR)/chime
	@mkdir -p $(@D)
	$< --generate-completion-script zsh >$@.tmp && mv $@.tmp $@

$(GEN_DIR)/completions/chime.fish: $(RELEASE_DIR)/chime
	@mkdir -p $(@D)
	$< --generate-completion-script fish >$@.tmp && mv $@.tmp $@

# The D-Bus contract is generated from Sources/ChimeAPI and committed, so that a fresh
# clone installs it without building; a test checks the two still agree.
api-xml:
	$(SWIFT) build --product chime-api-xml
	"$$($(SWIFT) build --show-bin-path)/chime-api-xml" >dbus/io.github.chime.Scheduler1.xml.tmp
	mv dbus/io.github.chime.Scheduler1.xml.tmp dbus/io.github.chime.Scheduler1.xml

# NO_BUILD=1 installs what is already built without asking make to check it (the
# tests do, while the build folder is in use).
BUILT = $(if $(NO_BUILD),,$(RELEASE_BINS) $(GENERATED) $(RELEASE_CATALOGUES))

install: $(BUILT)
	@$(INSTALL_ENV) scripts/install.sh install

# The same, with chime and chimed stripped of their debugging symbols (GNU's name for it).
install-strip: $(BUILT)
	@$(INSTALL_ENV) STRIP=1 scripts/install.sh install

uninstall:
	@$(INSTALL_ENV) scripts/install.sh uninstall

# A Debian package of the same files, installed under /usr: debian/ packages the release
# build with debhelper (scripts/deb.sh).
deb:
	scripts/deps.sh deb
	$(if $(BUILT),@$(MAKE) --no-print-directory $(BUILT))
	@BIN_DIR="$(CURDIR)/$(RELEASE_DIR)" GEN_DIR="$(CURDIR)/$(GEN_DIR)" RELEASE_DATE="$(RELEASE_DATE)" scripts/deb.sh

# The bus reads Exec= literally, so it gets the absolute path of this
# checkout's chimed. Regenerated every time: CONFIG may differ from last run.
services:
	@bin=$$($(SWIFT) build --show-bin-path $(if $(filter release,$(CONFIG)),$(RELEASEFLAGS))) && \
	mkdir -p $(SERVICE_DIR) && \
	sed "/^Exec=/s|@CHIMED@|$$bin/chimed|" $(SERVICE_TEMPLATE) >$(SERVICE_FILE).tmp && \
	mv $(SERVICE_FILE).tmp $(SERVICE_FILE)

# The in-process tests, for every edit: every test target but IntegrationTests, less the
# few tests in the others that start a dbus-daemon or ask Python for the answer
# (scripts/check.sh names them). The build packages only, no bus, no notification
# server; seconds once built. make test runs them too, with everything else.
check:
	scripts/deps.sh build
	$(SWIFT) build --build-tests $(SWIFTFLAGS)
	SWIFT="$(SWIFT)" scripts/check.sh

# The CalDAV end-to-end suites run on their own too, for the same reason: each waits on
# servers (Radicale, a hostile one, two chimed syncing) for tens of seconds.
CALDAV_SUITES := IntegrationTests\.CalDAV[A-Za-z]*Tests

# The install and package tests run `make install` and `make deb` themselves; building
# what they install first keeps the compiler out of the test run. The server matrix runs
# on its own after the rest: its minutes of blocking waits would otherwise hold one of the
# test runner's few threads (one per core) while other tests' time limits run out.
# python-icalendar for AlarmOracleTests: Debian's is older than its alarms module, so it
# comes from PyPI into a virtual environment of the build's own.
# The PyPI caldav client there too is the "phone" of the CalDAV tests: a client nobody here wrote.
# The stamp names what is installed: a list that grows installs what is new.
ORACLE_PACKAGES := 'icalendar>=6.1' 'caldav>=1.3'
ORACLE := .build/oracle/installed
$(ORACLE): Makefile
	test -x .build/oracle/bin/python || /usr/bin/python3 -m venv .build/oracle
	.build/oracle/bin/pip install --quiet $(ORACLE_PACKAGES)
	echo $(ORACLE_PACKAGES) >$@

test:
	scripts/deps.sh test
	$(MAKE) --no-print-directory $(ORACLE)
	$(MAKE) --no-print-directory $(RELEASE_BINS) $(GENERATED) $(RELEASE_CATALOGUES)
	$(SWIFT) build --build-tests $(SWIFTFLAGS)
	$(MAKE) --no-print-directory locale
	CHIME_BIN_DIR="$$($(SWIFT) build --show-bin-path)" $(SWIFT) test --skip-build --skip 'ServerMatrixTests|$(CALDAV_SUITES)'
	CHIME_BIN_DIR="$$($(SWIFT) build --show-bin-path)" $(SWIFT) test --skip-build --filter '$(CALDAV_SUITES)'
	CHIME_BIN_DIR="$$($(SWIFT) build --show-bin-path)" $(SWIFT) test --skip-build --filter ServerMatrixTests

# The server matrix alone (ServerMatrixTests, which make test runs too, but for the heavy
# servers such as Plasma), every server it knows, each reported as pass, fail or could not
# start; the table is the compatibility table of docs/troubleshooting.md.
MATRIX_REPORT := .build/server-matrix.jsonl
test-servers:
	scripts/deps.sh servers
	$(SWIFT) build --build-tests $(SWIFTFLAGS)
	$(MAKE) --no-print-directory locale
	@rm -f $(MATRIX_REPORT)
	@CHIME_SERVERS=all CHIME_MATRIX_ALLOW_MISSING=1 CHIME_MATRIX_REPORT="$(CURDIR)/$(MATRIX_REPORT)" \
	CHIME_BIN_DIR="$$($(SWIFT) build --show-bin-path)" $(SWIFT) test --skip-build --filter ServerMatrixTests; \
	status=$$?; echo; scripts/server-matrix.py $(MATRIX_REPORT) || status=1; exit $$status

demo:
	scripts/deps.sh demo
	$(MAKE) --no-print-directory build
	CHIME_BIN_DIR="$$($(SWIFT) build --show-bin-path)" scripts/demo.sh

# The debug test build too: bench.sh times make check's test run (not its build).
bench:
	scripts/deps.sh bench
	$(MAKE) --no-print-directory release $(GENERATED)
	$(SWIFT) build --build-tests $(SWIFTFLAGS)
	CHIME_BIN_DIR="$$($(SWIFT) build --show-bin-path $(RELEASEFLAGS))" SWIFT="$(SWIFT)" \
		SWIFTC="$(SWIFT_BIN)swiftc" SWIFT_LINKFLAGS="-static-stdlib $(RELEASE_LINKFLAGS)" scripts/bench.sh

# The fault rounds of make bench, repeated for SOAK_MINUTES (default 10); not in make test.
soak:
	scripts/deps.sh bench
	$(MAKE) --no-print-directory release
	$(SWIFT) build --build-tests $(SWIFTFLAGS)
	SWIFT="$(SWIFT)" CHIME_BIN_DIR="$$($(SWIFT) build --show-bin-path $(RELEASEFLAGS))" scripts/soak.sh

# The README's picture, from a real run of chimed and GNOME Shell, headless.
screenshot:
	scripts/deps.sh screenshot
	$(MAKE) --no-print-directory build
	CHIME_BIN_DIR="$$($(SWIFT) build --show-bin-path)" scripts/screenshot.sh

clean:
	rm -rf .build
