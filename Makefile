# hxterm - build, test, install. `make V=1` shows the full commands.
VERSION := $(shell cat VERSION)
PREFIX  ?= /usr/local
DESTDIR ?=
CC      ?= cc

ifeq ($(SANITIZE),1)
BUILD   := build-san
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all -DHX_DEBUG
else ifeq ($(TSAN),1)
# ThreadSanitizer: the workers share nothing but what is meant to be shared
BUILD   := build-tsan
SANFLAGS := -fsanitize=thread -fno-omit-frame-pointer -DHX_DEBUG
# a race ends the process at once, so the test that caused it fails
export TSAN_OPTIONS ?= halt_on_error=1 second_deadlock_stack=1
else ifeq ($(DEBUG),1)
# BUG_ON invariants checked, no sanitizer
BUILD   := build-debug
SANFLAGS := -DHX_DEBUG
else
BUILD   := build
SANFLAGS :=
endif

CFLAGS  ?= -O2 -g
WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
CPPFLAGS += -D_GNU_SOURCE -DHX_VERSION='"$(VERSION)"'
ALL_CFLAGS = $(CFLAGS) $(WARN) $(SANFLAGS) -MMD -MP -pthread
PKGS    := openssl libnghttp2 libngtcp2 libngtcp2_crypto_gnutls libnghttp3 gnutls liburing
# WHY deferred (=): on a fresh machine pkg-config and the -dev packages
# arrive with `make deps`, after this file was read
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CPPFLAGS += $(PKG_CFLAGS)
# WHY -lwslay by hand: Debian's libwslay-dev ships no pkg-config file
LDLIBS  += $(PKG_LIBS) -lwslay -lm
# WHY a path: Chart.js is embedded in both pages as Debian's libjs-chart.js ships it
CHARTJS ?= /usr/share/javascript/chart.js/chart.min.js
# WHY zlib for hxload alone: --hlog deflates its histograms as HdrHistogram's format says
LOAD_LIBS := -lz
ALL_LDFLAGS = $(LDFLAGS) $(SANFLAGS) -pthread

ifneq ($(V),1)
Q := @
say = @printf '  %-6s %s\n' $(1) $(2);
else
Q :=
say =
endif

# WHY folders by layer: each may include its own and lower layers only
# (scripts/layers checks it): core < net < conf < proto < server; load
# (hxload) sits on core and net beside the server, never on it
LAYERS   := core net conf proto server load
CPPFLAGS += $(patsubst %,-Isrc/%,$(LAYERS))
# WHY a folder per protocol with its own headers: only its files see them
# (HTTP/3: the shell, its two framing engines), but for the QUIC transport's
# (proto/quic), which HTTP/3 sits on (scripts/layers: SITS_ON)
SITS_ON_INC := -Isrc/proto/quic
CPPFLAGS += $(SITS_ON_INC)
PROTO_DIRS := proto/h1 proto/h2 proto/quic proto/h3 proto/ws
# hxload's folders, as proto's: its client protocols, body readers, the
# commands (ab, find, merge, compare, quic-flood, the child runs), --idle,
# the reports; each with its private headers, its interfaces in src/load
LOAD_DIRS  := load/proto load/readers load/cmd load/idle load/out
obj = $(patsubst src/%.c,$(BUILD)/src/%.o,$(wildcard $(patsubst %,src/%/*.c,$(1))))
LIB_OBJ    := $(call obj,core net)
HXTERM_OBJ := $(call obj,conf proto $(PROTO_DIRS) server)
HXLOAD_OBJ := $(call obj,load $(LOAD_DIRS))
LIB        := $(BUILD)/libhx.a

UNIT     := opt cond fmt plan h1_parse h1_memo h1_chunk body timer resp gen hist oq pool pp qinit loop qmem qh3mem hpack qpack hsrv szpool tls_mem huff qpack_dec hpack_dec h3read tc_set nconn qring tls_ciphers
# hxload's pure parts (its schedule, JSON reader, --fail-on, URL reader, t statistics,
# find's step judgement and search),
# linked with its objects but main (libload.a)
UNIT_LOAD := lc_cli lc_reader lc_hits lc_shape lc_json lc_check lc_url lc_stats_t lc_stat lc_find lc_hs lc_sse lc_h2_mem lc_tls_keys
UNIT_BIN := $(patsubst %,$(BUILD)/tests/unit/%.t,$(UNIT) $(UNIT_LOAD))
LOAD_LIB := $(BUILD)/libload.a

# fuzzers: libFuzzer drivers, one per decoder we wrote (clang, ASan+UBSan)
FUZZ         := h1_parse plan h1_chunk conn pp h2 h2diff quic qpack hsrv hpack
FUZZ_SECONDS ?= 60
fuzz_src_h1_parse := src/core/h1_parse.c
fuzz_src_plan     := src/core/plan.c src/core/plan_ext.c src/core/plan_conn.c src/core/num.c src/core/rng.c
fuzz_src_h1_chunk := src/core/h1_chunk.c
fuzz_src_pp       := src/core/pp.c
fuzz_src_hsrv     := src/net/hsrv_line.c
fuzz_src_hpack    = src/core/hpack_dec.c src/core/hpack.c src/core/stab.c src/core/huff.c $(PKG_LIBS) -pthread
fuzz_src_qpack    = src/core/qpack.c src/core/stab.c src/core/qpack_dec.c src/core/huff.c src/net/h3read.c $(PKG_LIBS) -pthread
fuzz_src_conn     = $(filter-out src/server/main.c,$(wildcard $(patsubst %,src/%/*.c,core net conf proto $(PROTO_DIRS) server))) \
		    $(PKG_LIBS) -lwslay -pthread
fuzz_src_h2       = $(fuzz_src_conn)
fuzz_src_h2diff   = $(fuzz_src_conn)
fuzz_src_quic     = $(fuzz_src_conn)

.PRECIOUS: $(BUILD)/tests/unit/%.o
.PHONY: deb all run check unit integ install uninstall clean deps deps-test format fuzz fuzz-smoke fuzz-long $(patsubst %,fuzz-smoke-%,$(FUZZ))

all: $(BUILD)/hxterm $(BUILD)/hxload hxterm

hxterm: $(BUILD)/hxterm $(BUILD)/hxload
	$(Q)[ "$(BUILD)" = build ] && ln -sf build/hxterm hxterm && ln -sf build/hxload hxload || true

# the shared layers, one static library: each program takes only the
# objects it calls
$(LIB): $(LIB_OBJ)
	$(call say,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(BUILD)/hxload: $(HXLOAD_OBJ) $(LIB)
	$(call say,LD,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS) $(LOAD_LIBS)

$(BUILD)/hxterm: $(HXTERM_OBJ) $(LIB)
	$(call say,LD,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/src/core/chart_lib.o: CPPFLAGS += -DHX_CHARTJS='"$(CHARTJS)"'
$(BUILD)/src/core/chart_lib.o: $(CHARTJS)

$(BUILD)/src/%.o: src/%.c | deps
	@mkdir -p $(dir $@)
	$(call say,CC,$<)
	$(Q)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/tests/unit/%.o: tests/unit/%.c
	@mkdir -p $(dir $@)
	$(call say,CC,$<)
	$(Q)$(CC) $(CPPFLAGS) -Itests/unit $(ALL_CFLAGS) -c -o $@ $<

# WHY the folders' headers for hxload's unit tests: they test a folder's
# private parts (find's search, the statistics of ab and compare)
$(BUILD)/tests/unit/lc_%.o: CPPFLAGS += $(patsubst %,-Isrc/%,$(LOAD_DIRS))

$(LOAD_LIB): $(filter-out %/main.o,$(HXLOAD_OBJ))
	$(call say,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(BUILD)/tests/unit/lc_%.t: $(BUILD)/tests/unit/lc_%.o $(LOAD_LIB) $(LIB)
	$(call say,LD,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS) $(LOAD_LIBS)

# WHY the session layer's connection set and the counters it writes: the
# one unit test of src/proto, which libhx.a does not hold
$(BUILD)/tests/unit/tc_set.t: $(BUILD)/tests/unit/tc_set.o $(BUILD)/src/proto/tc_set.o $(BUILD)/src/proto/stats.o $(LIB)
	$(call say,LD,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/unit/%.t: $(BUILD)/tests/unit/%.o $(LIB)
	$(call say,LD,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS)

# packages: installed when missing and root, else the apt-get line is printed
deps:
	@scripts/deps build

deps-test:
	@scripts/deps test

# ARGS: hxterm's options (make run ARGS='-L 127.0.0.1:8000:8443 -t 2')
run: all
	./$(BUILD)/hxterm $(ARGS)

unit: $(UNIT_BIN)

# the tests of hxload's own figures and statistics: what they check does not
# depend on how the server does its I/O, nor on a thread sanitizer (hxload
# runs under TSan in every other test that loads a server)
INTEG_LOAD := $(patsubst %,tests/integ/%.t,14-hxload 22-hxload-proxy 32-compare 36-hxload-numbers 37-hxload-ab 40-hxload-find \
	42-hxload-source 43-hxload-probe 45-hxload-shard 46-hxload-metrics 47-hxload-hlog 53-hxload-ab-verdict \
	54-compare-noise 60-hxload-h3 66-hxload-handshakes 69-hxload-idle 71-hxload-idle-h3 72-hxload-h2-engines \
	73-hxload-spread)

# the tests of HTTP/3 alone: QUIC does its own I/O on UDP, never on the ring
INTEG_QUIC := $(patsubst %,tests/integ/%.t,13-quic-garbage 33-quic-admission 38-h3-bulk 39-h3-resume 57-udp-drops 58-h3-stream-grants \
	59-h3-sendmmsg 60-hxload-h3 71-hxload-idle-h3)

# the tests that run once, in the plain build's first pass: real proxies in
# front, the memory held by thousands of idle connections; what they check
# is not the server's I/O path nor a race a sanitizer would see, and each
# pass of them costs CI time. WHY the saturation guard's (67) too: under
# ASan hxload is slowed as much as the 1-thread server it must saturate, and
# the verdict then rightly blames the client (CI failed on it, loaded host)
# WHY the layering and the docs (19, 20) too: the sources and the help text
# are the same in every build, and 19 took 15-19 s of two cores a sanitized pass
INTEG_ONCE := $(patsubst %,tests/integ/%.t,55-h2-idle 56-idle-conns 61-caddy 62-varnish 63-trafficserver 64-apache \
	65-nghttpx 67-backend-saturated 68-tokens 71-hxload-idle-h3 19-layers 20-docs)

# WHY not all again: these start no hxterm of their own (the layering, the
# docs, the package), so HX_ARGS changes nothing in them; nor hxload's own;
# nor HTTP/3's, which the ring does not carry (about 70 s a pass); nor the
# live page's history, the stats thread's (40 s); nor the malformed-field
# table, which tests the parsers and runs both engines itself (6 s)
INTEG_URING := $(filter-out tests/integ/19-layers.t tests/integ/20-docs.t tests/integ/26-deploy.t $(INTEG_LOAD) \
	$(INTEG_ONCE) $(INTEG_QUIC) tests/integ/50-live-page.t tests/integ/52-fields.t, $(wildcard tests/integ/*.t))

# the tests of what the ring carries (cleartext h1 and h2c: TLS and QUIC do
# their own I/O), for CI's ASan+UBSan io_uring pass (CHECK_PASSES=uring-core)
INTEG_URING_CORE := $(patsubst %,tests/integ/%.t,01-keys 02-pipeline 03-timing 04-bad-input 05-body \
	06-faults-timeouts 08-limits 09-h2 10-h2-raw 11-drain 15-slowloris 16-splice 17-uring 21-alloc \
	27-h2-stalls 28-backend 31-websocket 35-ws-flood)

# the tests of HTTP/2 itself (curl, nghttp, h2load, python3-h2, websockets),
# again on the HTTP/2 engine that is not the default
INTEG_H2 := $(patsubst %,tests/integ/%.t,09-h2 10-h2-raw 11-drain 21-alloc 23-stats 27-h2-stalls 31-websocket 35-ws-flood \
	44-echo-body 48-sse 49-grpc 51-unread-bodies 70-conn-behaviours)
H2_OTHER := nghttp2

# the tests of HTTP/3 responses (gtlsclient, hxload), again on nghttp3's
# framing, the engine that is not the default
INTEG_H3 := $(patsubst %,tests/integ/%.t,12-h3 33-quic-admission 38-h3-bulk)
H3_OTHER := nghttp3

# the passes of check: every test on epoll, the integration tests again with
# --io-uring, the HTTP/2 and HTTP/3 ones again on the other engines;
# CHECK_PASSES=epoll runs the first alone (CI's ThreadSanitizer build), and
# uring-core is the io_uring pass on INTEG_URING_CORE (CI's ASan+UBSan
# build): to keep CI under 30 min
CHECK_PASSES ?= epoll uring h2other h3other
# CHECK_NO_LOAD=1: the first pass without INTEG_LOAD (CI's ThreadSanitizer build)
INTEG_FIRST := $(filter-out $(if $(CHECK_NO_LOAD),$(INTEG_LOAD)) $(if $(SANITIZE)$(TSAN),$(INTEG_ONCE)),$(wildcard tests/integ/*.t))

# the tests that mostly wait on timers (stalls, t= waits, the older tools'
# habits: under 3 s of CPU in 50 s; a service's start and stop, the fd limit,
# WebSocket closes, a drain: under 3 s in 10): each pass runs them one at a
# time beside the others (prove -j2, two chains), which keeps CI under 30 min
SLEEPERS := $(patsubst %,tests/integ/%.t,06-faults-timeouts 27-h2-stalls 29-compat 50-live-page \
	24-service 08-limits 31-websocket 11-drain)
# the light tests that bound no time (counters, memory, formats, merges), in
# the sleepers' chain of CI's ASan+UBSan pass. WHY: there that chain took
# 187 s while the other took 815 s, and the longer is the pass's wall time
# (ASan pass 499 -> 343 s). WHY not in the other builds: beside the
# ThreadSanitizer pass's timing tests they failed 03-timing (49 ms) and
# 10-h2-raw's order of waits, and the plain io_uring pass's 03-timing once
LIGHT := $(patsubst %,tests/integ/%.t,23-stats 25-access-log 26-deploy 30-tickets 34-signals \
	41-cache 42-hxload-source 45-hxload-shard 46-hxload-metrics 47-hxload-hlog 49-grpc 51-unread-bodies 52-fields \
	13-quic-garbage 16-splice 58-h3-stream-grants 69-hxload-idle)
comma := ,
space := $(subst ,, )
PROVE := prove -f --timer -j2 --rules='seq={$(subst $(space),$(comma),$(strip $(SLEEPERS) $(if $(SANITIZE),$(LIGHT))))}' --rules='seq=**'

check: all unit deps-test
	@scripts/layers
	@HXTERM=$(CURDIR)/$(BUILD)/hxterm HXLOAD=$(CURDIR)/$(BUILD)/hxload $(PROVE) $(UNIT_BIN) $(INTEG_FIRST)
ifneq ($(filter uring,$(CHECK_PASSES)),)
	@echo "# the integration tests that start an hxterm, again with --io-uring:"
	@HX_ARGS=--io-uring HXTERM=$(CURDIR)/$(BUILD)/hxterm HXLOAD=$(CURDIR)/$(BUILD)/hxload $(PROVE) $(INTEG_URING)
endif
ifneq ($(filter uring-core,$(CHECK_PASSES)),)
	@echo "# the tests of cleartext h1 and h2c, what the ring carries, again with --io-uring:"
	@HX_ARGS=--io-uring HXTERM=$(CURDIR)/$(BUILD)/hxterm HXLOAD=$(CURDIR)/$(BUILD)/hxload $(PROVE) $(INTEG_URING_CORE)
endif
ifneq ($(filter h2other,$(CHECK_PASSES)),)
	@echo "# the HTTP/2 tests again with --h2-engine $(H2_OTHER):"
	@HX_ARGS="--h2-engine $(H2_OTHER)" HXTERM=$(CURDIR)/$(BUILD)/hxterm HXLOAD=$(CURDIR)/$(BUILD)/hxload $(PROVE) $(INTEG_H2)
endif
ifneq ($(filter h3other,$(CHECK_PASSES)),)
	@echo "# the HTTP/3 tests again with --h3-engine $(H3_OTHER):"
	@HX_ARGS="--h3-engine $(H3_OTHER)" HXTERM=$(CURDIR)/$(BUILD)/hxterm HXLOAD=$(CURDIR)/$(BUILD)/hxload $(PROVE) $(INTEG_H3)
endif

FUZZ_CFLAGS := -g -O1 -fno-sanitize-recover=all -DHX_DEBUG $(patsubst %,-Isrc/%,$(LAYERS)) $(SITS_ON_INC) \
	-D_GNU_SOURCE -DHX_VERSION='"$(VERSION)"' -DHX_CHARTJS='"$(CHARTJS)"'
# WHY the sources compiled once, as objects each driver links: four drivers
# (conn, h2, h2diff, quic) link the whole server, and each compiled it again
# in one clang process (25-40 s each, one after the other in CI's fuzz-smoke)
fuzz_objs = $(patsubst src/%.c,build-fuzz/obj/%.o,$(filter %.c,$(fuzz_src_$(1))))
.PRECIOUS: build-fuzz/obj/%.o
build-fuzz/.deps:
	@scripts/deps fuzz
	@mkdir -p build-fuzz && touch $@

build-fuzz/obj/%.o: src/%.c | build-fuzz/.deps
	@mkdir -p $(dir $@)
	$(call say,FUZZ,$@)
	$(Q)clang $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link,address,undefined -MMD -MP -c -o $@ $<

.SECONDEXPANSION:
build-fuzz/%: tests/fuzz/%.c $$(call fuzz_objs,$$*) | build-fuzz/.deps
	$(call say,FUZZ,$@)
	$(Q)clang $(FUZZ_CFLAGS) -fsanitize=fuzzer,address,undefined \
		-o $@ $< $(call fuzz_objs,$*) $(filter-out %.c,$(fuzz_src_$*)) -lm

fuzz: $(patsubst %,build-fuzz/%,$(FUZZ))

# each fuzzer for FUZZ_SECONDS from the committed corpus; any crash, leak or
# sanitizer report fails (libFuzzer exits non-zero)
# WHY a target per driver: `make -j2 fuzz-smoke` runs two at a time, each
# on a core of its own (one libFuzzer process is one thread)
fuzz-smoke: $(patsubst %,fuzz-smoke-%,$(FUZZ))
$(patsubst %,fuzz-smoke-%,$(FUZZ)): fuzz-smoke-%: build-fuzz/%
	@mkdir -p build-fuzz/corpus-$* && cp tests/fuzz/corpus/$*/* build-fuzz/corpus-$*/
	@build-fuzz/$* -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
		-dict=tests/fuzz/$*.dict build-fuzz/corpus-$* 2>build-fuzz/$*.log || \
		{ echo "fuzz $* for $(FUZZ_SECONDS) s: FAILED"; tail -40 build-fuzz/$*.log; exit 1; }
	@echo "fuzz $* for $(FUZZ_SECONDS) s:" $$(grep -E "stat::number_of_executed_units|stat::average_exec_per_sec" build-fuzz/$*.log)

# every fuzzer for 10 million executions or an hour (FUZZ_RUNS, FUZZ_LONG_SECONDS,
# FUZZ_JOBS at a time), the grown corpus minimised into tests/fuzz/corpus, a
# summary line each in build-fuzz/fuzz-long.txt
fuzz-long: fuzz
	@scripts/fuzz-long $(FUZZ)

# WHY no build here: `sudo make install` must never run apt-get (the build's
# deps step); it installs what `make` built, or says to build first
INSTALLED := bin/hxterm bin/hxload share/man/man1/hxterm.1 share/man/man1/hxload.1
install:
	@[ -x $(BUILD)/hxterm ] && [ -x $(BUILD)/hxload ] || \
		{ echo "make install: nothing built yet; run make first (install builds nothing, installs no package)" >&2; exit 2; }
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(BUILD)/hxterm $(DESTDIR)$(PREFIX)/bin/hxterm
	install -m 755 $(BUILD)/hxload $(DESTDIR)$(PREFIX)/bin/hxload
	install -m 644 doc/hxterm.1 $(DESTDIR)$(PREFIX)/share/man/man1/hxterm.1
	install -m 644 doc/hxload.1 $(DESTDIR)$(PREFIX)/share/man/man1/hxload.1

# a Debian package of both programs, their man pages and the systemd unit,
# built with debhelper from a copy of the tracked tree: build-deb/hxterm_*.deb
deb:
	@scripts/deps deb
	rm -rf build-deb && mkdir -p build-deb/src
	git ls-files -z | xargs -0 cp --parents -t build-deb/src
	cd build-deb/src && dpkg-buildpackage -b -us -uc >../build.log 2>&1 || { tail -30 ../build.log; exit 1; }
	@ls build-deb/*.deb

# removes what install put there; under a DESTDIR, the folders it made too
uninstall:
	rm -f $(patsubst %,$(DESTDIR)$(PREFIX)/%,$(INSTALLED))
	@if [ -n "$(DESTDIR)" ]; then \
		rmdir -p --ignore-fail-on-non-empty $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 2>/dev/null || true; \
	fi

format:
	clang-format -i src/*/*.c src/*/*.h src/*/*/*.c src/*/*/*.h tests/unit/*.c tests/unit/*.h

clean:
	rm -rf build build-san build-tsan build-debug build-fuzz build-deb hxterm hxload

-include $(shell find $(BUILD) build-fuzz/obj -name '*.d' 2>/dev/null)
