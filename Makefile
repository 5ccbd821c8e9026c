# arbiter - see README.md.  Targets: all deps run test asan bench bench-peers install clean
CC       ?= cc
OPT      ?= -O2 -g
PREFIX   ?= /usr/local
DESTDIR  ?=
XCFLAGS  ?=
BUILD    ?= build

PKGS     := libuv msgpack lmdb libsodium
PKGCFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKGLIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)

CFLAGS  := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -Wall -Wextra -Werror \
           -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
           -I. $(OPT) $(PKGCFLAGS) $(XCFLAGS) -MMD -MP
LDLIBS  := $(PKGLIBS) -lpthread

CORE_SRC   := $(wildcard core/*.c core/ledger/*.c core/rules/*.c)
PROTO_SRC  := $(wildcard proto/*.c)
TOOLS_SRC  := $(wildcard tools/*.c)
DAEMON_SRC := $(wildcard daemon/*.c)
UNIT_SRC   := $(wildcard tests/unit/test_*.c)
BENCH_SRC  := $(wildcard tests/bench/bench_*.c)
FUZZ_SRC   := $(wildcard tests/fuzz/fuzz_*.c)

obj = $(patsubst %.c,$(BUILD)/%.o,$(1))

LIBCORE  := $(BUILD)/libarbcore.a
LIBPROTO := $(BUILD)/libarbproto.a
UNITS    := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRC))
BENCHES  := $(patsubst tests/bench/%.c,$(BUILD)/tests/%,$(BENCH_SRC))
FUZZERS  := $(patsubst tests/fuzz/%.c,$(BUILD)/tests/%,$(FUZZ_SRC))
BINS     := bin/arbiter $(if $(DAEMON_SRC),bin/arbiterd)

.PHONY: all deps run test unit integration asan bench bench-peers install clean
# Keep test objects: they are intermediates of a pattern chain.
.SECONDARY:
all: deps-check $(BINS) $(UNITS) $(BENCHES) $(FUZZERS)

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

$(LIBCORE): $(call obj,$(CORE_SRC))
	@mkdir -p $(dir $@)
	$(Q)$(AR) rcs $@ $^
$(LIBPROTO): $(call obj,$(PROTO_SRC))
	@mkdir -p $(dir $@)
	$(Q)$(AR) rcs $@ $^

bin/arbiter: $(call obj,$(TOOLS_SRC)) $(LIBPROTO) $(LIBCORE)
	@mkdir -p bin
	@$(if $(V),,echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)
bin/arbiterd: $(call obj,$(DAEMON_SRC)) $(LIBPROTO) $(LIBCORE)
	@mkdir -p bin
	@$(if $(V),,echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/%: $(BUILD)/tests/unit/%.o $(LIBPROTO) $(LIBCORE)
	@$(if $(V),,echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)
$(BUILD)/tests/bench_%: $(BUILD)/tests/bench/bench_%.o $(LIBPROTO) $(LIBCORE)
	@$(if $(V),,echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)
$(BUILD)/tests/fuzz_%: $(BUILD)/tests/fuzz/fuzz_%.o $(LIBPROTO) $(LIBCORE)
	@$(if $(V),,echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

# make run: set-up, build, then start the recorder on ./var/arbiter.
run: all
	@if [ -x bin/arbiterd ]; then exec bin/arbiterd --config config/arbiterd.conf; \
	 else bin/arbiter --help; fi

test: all
	@sh tests/run.sh $(BUILD)

# The sanitized binaries land in bin/ (the integration tests run them);
# they are removed afterwards so the next plain build relinks bin/.
asan:
	rm -f $(BINS)
	$(MAKE) BUILD=build-asan OPT="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" test; \
	rc=$$?; rm -f $(BINS); exit $$rc

bench: all
	@sh tests/bench/run.sh $(BUILD)

# arbiterd against Redis Streams (a benchmark peer only, skipped when
# redis-server is not installed), in the same run: tests/bench/peers.sh.
bench-peers: all
	@sh tests/bench/peers.sh $(BUILD)

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/arbiter
	install -m 0755 $(BINS) $(DESTDIR)$(PREFIX)/bin/
	install -m 0644 config/arbiterd.conf $(DESTDIR)$(PREFIX)/share/arbiter/

clean:
	rm -rf build build-asan bin

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
