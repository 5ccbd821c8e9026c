# arbiter - see README.md.  Targets: all deps run test soak asan fuzz bench
# bench-peers install clean
CC       ?= cc
OPT      ?= -O2 -g
PREFIX   ?= /usr/local
DESTDIR  ?=
BINDIR   ?= $(PREFIX)/bin
SYSCONFDIR ?= /etc
MANDIR   ?= $(PREFIX)/share/man
UNITDIR  ?= $(PREFIX)/lib/systemd/system
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
# what `make install` gives the service's group its configuration with
GETENT   ?= getent
SYSUSERS ?= systemd-sysusers
CHGRP    ?= chgrp
COMPLETIONDIR ?= $(PREFIX)/share/bash-completion/completions
XCFLAGS  ?=
BUILD    ?= build

PKGS     := libuv msgpack lmdb libsodium jansson libedit libh2o libnats zlib
PKGCFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKGLIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)

CFLAGS  := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -Wall -Wextra -Werror \
           -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
           -I. $(OPT) $(PKGCFLAGS) $(XCFLAGS) -MMD -MP
LDLIBS  := $(PKGLIBS) -lpthread

CORE_SRC   := $(wildcard core/*.c core/ledger/*.c core/rules/*.c)
# The web pages' files, compiled into libarbcore (core/web/assets.h).
WEB_FILES  := $(sort $(wildcard core/web/*.html core/web/*.css core/web/*.js \
                                core/web/*.svg))
WEB_OBJ    := $(BUILD)/core/web/assets_gen.o
PROTO_SRC  := $(wildcard proto/*.c)
TOOLS_SRC  := $(wildcard tools/*.c)
DAEMON_SRC := $(wildcard daemon/*.c)
UNIT_SRC   := $(wildcard tests/unit/test_*.c)
BENCH_SRC  := $(wildcard tests/bench/bench_*.c)
FUZZ_SRC   := $(wildcard tests/fuzz/fuzz_*.c)
# The daemon without its main(), for the harness that drives arb_dispatch.
DLIB_SRC   := $(filter-out daemon/main.c,$(DAEMON_SRC))
# The tools without their main(), for the harnesses of the tools' parsers.
TLIB_SRC   := $(filter-out tools/arbiter.c,$(TOOLS_SRC))
# The crash tests' shared load client and power-cut rebuild; the I/O shim
# is a preloaded library of its own.
TESTLIB_SRC := $(filter-out tests/crash/iosim.c,$(wildcard tests/crash/*.c)) \
               tests/nomem/failalloc.c
SOAK_SRC   := $(wildcard tests/soak/soak_*.c)
# What an operator does to a NATS stream, for the shell tests.
NATS_OP    := $(BUILD)/tests/nats_op
# A page in a headless browser, driven step by step from a shell test.
PAGE_STEPS := $(BUILD)/tests/page_steps

obj = $(patsubst %.c,$(BUILD)/%.o,$(1))

LIBCORE  := $(BUILD)/libarbcore.a
LIBPROTO := $(BUILD)/libarbproto.a
LIBDAEMON := $(BUILD)/libarbd.a
LIBTOOLS := $(BUILD)/libarbtools.a
LIBTEST  := $(BUILD)/libarbtest.a
IOSIM    := $(BUILD)/tests/iosim.so
SOAKS    := $(patsubst tests/soak/%.c,$(BUILD)/tests/%,$(SOAK_SRC))
UNITS    := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRC))
BENCHES  := $(patsubst tests/bench/%.c,$(BUILD)/tests/%,$(BENCH_SRC))
FUZZERS  := $(patsubst tests/fuzz/%.c,$(BUILD)/tests/%,$(FUZZ_SRC))
BINS     := bin/arbiter $(if $(DAEMON_SRC),bin/arbiterd)

.PHONY: all deps run test soak unit integration asan fuzz fuzzers bench \
        bench-peers install clean
# Keep test objects: they are intermediates of a pattern chain.
.SECONDARY:
all: deps-check $(BINS) $(UNITS) $(BENCHES) $(FUZZERS) $(IOSIM) $(SOAKS) \
     $(NATS_OP) $(PAGE_STEPS)

# Installs the missing Debian packages; does nothing when all are present.
deps:
	@sh .ci/deps

deps-check:
	@pkg-config --exists $(PKGS) 2>/dev/null || sh .ci/deps
.PHONY: deps-check

# V=1 shows the full commands.
Q = $(if $(V),,@)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/core/web/assets_gen.c: $(WEB_FILES) core/web/embed.sh
	@mkdir -p $(dir $@)
	$(Q)sh core/web/embed.sh $@ $(WEB_FILES)
$(WEB_OBJ): $(BUILD)/core/web/assets_gen.c
	@$(if $(V),,echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(LIBCORE): $(call obj,$(CORE_SRC)) $(WEB_OBJ)
	@mkdir -p $(dir $@)
	$(Q)$(AR) rcs $@ $^
$(LIBPROTO): $(call obj,$(PROTO_SRC))
	@mkdir -p $(dir $@)
	$(Q)$(AR) rcs $@ $^
$(LIBDAEMON): $(call obj,$(DLIB_SRC))
	@mkdir -p $(dir $@)
	$(Q)$(AR) rcs $@ $^
$(LIBTOOLS): $(call obj,$(TLIB_SRC))
	@mkdir -p $(dir $@)
	$(Q)$(AR) rcs $@ $^
$(LIBTEST): $(call obj,$(TESTLIB_SRC))
	@mkdir -p $(dir $@)
	$(Q)$(AR) rcs $@ $^

# Preloaded into the daemon: never sanitized itself (the sanitizer runtime
# of an asan daemon must stay its own), so OPT is not used.
$(IOSIM): tests/crash/iosim.c tests/crash/iosim.h
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  SO      $@")
	$(Q)$(CC) -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -Wall -Wextra \
	    -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -I. -O2 -g \
	    -fPIC -shared -o $@ $< -ldl -lpthread

bin/arbiter: $(call obj,$(TOOLS_SRC)) $(LIBPROTO) $(LIBCORE)
	@mkdir -p bin
	@$(if $(V),,echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)
bin/arbiterd: $(call obj,$(DAEMON_SRC)) $(LIBPROTO) $(LIBCORE)
	@mkdir -p bin
	@$(if $(V),,echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/%: $(BUILD)/tests/unit/%.o $(LIBTEST) $(LIBDAEMON) $(LIBPROTO) \
                  $(LIBCORE)
	@$(if $(V),,echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) $(WRAP_LDFLAGS) -o $@ $^ $(TOOL_LIBS) $(LDLIBS)
# A test of the command-line program's own helpers links them too.
$(BUILD)/tests/test_cli_file: $(LIBTOOLS)
$(BUILD)/tests/test_cli_file: TOOL_LIBS = $(LIBTOOLS) $(LIBPROTO) $(LIBCORE)
$(BUILD)/tests/test_migrate: $(LIBTOOLS)
$(BUILD)/tests/test_migrate: TOOL_LIBS = $(LIBTOOLS) $(LIBPROTO) $(LIBCORE)
# Tests of allocation failures: the project's own allocations go through
# tests/nomem/failalloc.c, which fails the one a test picks.
WRAP_ALLOC := -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=strdup \
              -Wl,--wrap=strndup
$(BUILD)/tests/test_nomem: WRAP_LDFLAGS = $(WRAP_ALLOC)
$(BUILD)/tests/test_nomem: $(LIBTOOLS)
$(BUILD)/tests/test_nomem: TOOL_LIBS = $(LIBTOOLS) $(LIBPROTO) $(LIBCORE)
$(BUILD)/tests/test_repl_fence: WRAP_LDFLAGS = $(WRAP_ALLOC)
# A PubAck handler held on its way to r->mu (test_repl_shutdown.c).
$(BUILD)/tests/test_repl_shutdown: WRAP_LDFLAGS = \
    -Wl,--wrap=pthread_mutex_lock
$(BUILD)/tests/bench_%: $(BUILD)/tests/bench/bench_%.o $(LIBPROTO) $(LIBCORE)
	@$(if $(V),,echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)
# A harness gets its main() from replay_main.c (replays its corpus), or
# from libFuzzer when make fuzz empties FUZZ_MAIN.
FUZZ_MAIN    ?= $(BUILD)/tests/fuzz/replay_main.o
FUZZ_LDFLAGS ?=
$(BUILD)/tests/fuzz_%: $(BUILD)/tests/fuzz/fuzz_%.o $(FUZZ_MAIN) $(LIBTEST) \
                       $(LIBTOOLS) $(LIBDAEMON) $(LIBPROTO) $(LIBCORE)
	@$(if $(V),,echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) $(FUZZ_LDFLAGS) -o $@ $^ $(LDLIBS)
$(BUILD)/tests/soak_%: $(BUILD)/tests/soak/soak_%.o $(LIBTEST) $(LIBPROTO) $(LIBCORE)
	@$(if $(V),,echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)
$(NATS_OP): $(BUILD)/tests/cluster/nats_op.o $(LIBPROTO) $(LIBCORE)
	@$(if $(V),,echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)
$(PAGE_STEPS): $(BUILD)/tests/browser/page_steps.o $(LIBCORE)
	@$(if $(V),,echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

# make run: set-up, build, then start the recorder on ./var/arbiter.
run: all
	@if [ -x bin/arbiterd ]; then exec bin/arbiterd --config config/arbiterd.conf; \
	 else bin/arbiter --help; fi

test: all
	@sh tests/run.sh $(BUILD)

# The long fault runs (docs/FAULTS.md): >= 1,000 power cuts and >= 1,000
# kill -9 under load, the whole I/O-error loop, and the load-with-faults
# soak for SOAK_SECS.  Figures go to stdout.
SOAK_SECS ?= 600
soak: all
	@sh tests/soak/run.sh $(BUILD) $(SOAK_SECS)

# The cluster soak (docs/FAULTS.md): SOAK_CYCLES cycles of faults (kill -9,
# frozen and lost NATS nodes, lost machines restored from the stream) on a
# 3-node JetStream cluster on loopback, two recorders and a read replica.
SOAK_CYCLES ?= 100
soak-cluster: all
	@BUILD=$(BUILD) sh tests/soak/cluster.sh $(SOAK_CYCLES)
.PHONY: soak-cluster

# The sanitized binaries land in bin/ (the integration tests run them);
# they are removed afterwards so the next plain build relinks bin/.
asan:
	rm -f $(BINS)
	$(MAKE) BUILD=build-asan OPT="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" test; \
	rc=$$?; rm -f $(BINS); exit $$rc

# make fuzz FUZZ_SECS=N [FUZZ_RUNS=M] [FUZZ_JOBS=J]: every harness built
# with clang's libFuzzer under ASan+UBSan in build-fuzz/, then run for N
# seconds each (or M executions, when that comes first), J at a time.
FUZZ_CC   ?= clang-14
FUZZ_SECS ?= 60
FUZZ_RUNS ?=
FUZZ_JOBS ?= 1
fuzz:
	@sh .ci/deps fuzz
	$(MAKE) CC=$(FUZZ_CC) BUILD=build-fuzz FUZZ_MAIN= \
	    FUZZ_LDFLAGS=-fsanitize=fuzzer \
	    OPT="-O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
	    fuzzers
	@FUZZ_RUNS=$(FUZZ_RUNS) FUZZ_JOBS=$(FUZZ_JOBS) sh tests/fuzz/run.sh build-fuzz $(FUZZ_SECS)
fuzzers: deps-check $(FUZZERS)

bench: all
	@sh tests/bench/run.sh $(BUILD)

# A 3-node JetStream cluster, two replicating recorders and a read replica
# on loopback, in the foreground (docs/SCALE.md).
run-cluster: all
	@sh tests/cluster/run_cluster.sh
.PHONY: run-cluster

# Replication to NATS JetStream (docs/SCALE.md): a 3-node cluster on
# loopback; local only vs async vs sync at 16 and 256 tables, and the lag.
bench-cluster: all
	@BUILD=$(BUILD) sh tests/bench/cluster.sh
.PHONY: bench-cluster

# Binaries, the configuration (never over an operator's own), the systemd
# unit with this install's paths and its user, the manual pages and the
# bash completion.  docs/OPERATIONS.md: the steps after it.
# arbiterd against Redis Streams (a benchmark peer only, skipped when
# redis-server is not installed), in the same run: tests/bench/peers.sh.
bench-peers: all
	@sh tests/bench/peers.sh $(BUILD)

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(PREFIX)/share/arbiter \
	    $(DESTDIR)$(SYSCONFDIR)/arbiter $(DESTDIR)$(UNITDIR) \
	    $(DESTDIR)$(SYSUSERSDIR) $(DESTDIR)$(COMPLETIONDIR) \
	    $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 \
	    $(DESTDIR)$(MANDIR)/man8
	install -m 0755 $(BINS) $(DESTDIR)$(BINDIR)/
	install -m 0644 config/arbiterd.conf $(DESTDIR)$(PREFIX)/share/arbiter/
	install -m 0644 config/arbiter.sysusers $(DESTDIR)$(SYSUSERSDIR)/arbiter.conf
	[ -e $(DESTDIR)$(SYSCONFDIR)/arbiter/arbiterd.conf ] || \
	    install -m 0640 config/arbiterd.conf $(DESTDIR)$(SYSCONFDIR)/arbiter/
	@# The service reads its configuration as the user arbiter: installed \
	# on this machine (no DESTDIR), the group is made now if it is not \
	# there and given the file; a package does that in its own scripts.
	@if [ -z "$(DESTDIR)" ]; then \
	    $(GETENT) group arbiter > /dev/null 2>&1 \
	    || $(SYSUSERS) $(SYSUSERSDIR)/arbiter.conf > /dev/null 2>&1; \
	    if $(GETENT) group arbiter > /dev/null 2>&1; then \
	        $(CHGRP) arbiter $(SYSCONFDIR)/arbiter/arbiterd.conf; \
	    else \
	        echo "make install: no group arbiter (systemd-sysusers made" \
	            "none): give it $(SYSCONFDIR)/arbiter/arbiterd.conf" \
	            "(chgrp arbiter) before the service starts"; \
	    fi; \
	fi
	sed -e 's|/usr/local/bin/|$(BINDIR)/|g' \
	    -e 's|/etc/arbiter/|$(SYSCONFDIR)/arbiter/|g' \
	    config/arbiterd.service > $(DESTDIR)$(UNITDIR)/arbiterd.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/arbiterd.service
	install -m 0644 config/arbiter.bash-completion $(DESTDIR)$(COMPLETIONDIR)/arbiter
	install -m 0644 docs/man/arbiter.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 docs/man/arbiterd.conf.5 $(DESTDIR)$(MANDIR)/man5/
	install -m 0644 docs/man/arbiterd.8 $(DESTDIR)$(MANDIR)/man8/

clean:
	rm -rf build build-asan build-fuzz bin

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
