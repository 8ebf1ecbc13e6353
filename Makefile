# Makefile - builds vmmprof, its unit tests and its sanitizer build.
#
#   make                 build/vmmprof
#   make check           unit tests and command-line tests
#   make SAN=1 check     the same under AddressSanitizer + UndefinedBehaviorSanitizer
#   make install PREFIX=/usr/local
#   make cross-arm64     build-arm64/vmmprof for the aarch64 testbed guest
#
# Sources are found by wildcard: a new src/<module>/*.c or tests/unit/*.c
# joins the build without editing this file.

SAN ?= 0
FUZZ ?= 0
ifeq ($(FUZZ),1)
# libFuzzer build: the library instrumented for coverage, harnesses linked
# with -fsanitize=fuzzer (tests/fuzz/*.c, see tests/tiers/fuzz.sh).
BUILD ?= build-fuzz
CC := clang
SANFLAGS := -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer
DEBUGFLAGS := -DVP_DEBUG
else ifeq ($(SAN),1)
BUILD ?= build-san
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
# VP_ALWAYS()/VP_NEVER() abort where the code meets a case it believes impossible (util/check.h)
DEBUGFLAGS := -DVP_DEBUG
else
BUILD ?= build
SANFLAGS :=
endif

CC ?= cc
PREFIX ?= /usr/local
OPT ?= -O2 -g
WERROR ?= -Werror
CFLAGS ?= $(OPT)
WARN := -Wall -Wextra $(WERROR) -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	-Wno-missing-field-initializers
CPPFLAGS_ALL := -std=c11 -D_GNU_SOURCE -Isrc -MMD -MP
LDLIBS_ALL := -lm -lpthread

PKGCONFIG ?= pkg-config

# Required dependencies.  libpfm4 ships no pkg-config file in Debian, so it
# is found by its header.
REQ_PKGS := hwloc numa
$(foreach p,$(REQ_PKGS),$(if $(shell $(PKGCONFIG) --exists $(p) && echo y),,\
	$(error missing dependency '$(p)' (pkg-config): run scripts/install-deps.sh)))
HAVE_PFM := $(shell printf '\#include <perfmon/pfmlib_perf_event.h>\n' | \
	$(CC) -E -x c - >/dev/null 2>&1 && echo y)
ifneq ($(HAVE_PFM),y)
$(error missing dependency 'libpfm4' (perfmon/pfmlib_perf_event.h): run scripts/install-deps.sh)
endif
DEP_CFLAGS := $(shell $(PKGCONFIG) --cflags $(REQ_PKGS))
DEP_LIBS := $(shell $(PKGCONFIG) --libs $(REQ_PKGS)) -lpfm

# Optional dependencies: each turns a feature on, and its absence is said.
OPT_PKGS := sqlite3:HAVE_SQLITE:recordings ncursesw:HAVE_NCURSES:top jansson:HAVE_JANSSON:json-input \
	libmicrohttpd:HAVE_MHD:daemon libcurl:HAVE_CURL:remote nettle:HAVE_NETTLE:user-tokens
define opt_dep
$(if $(shell $(PKGCONFIG) --exists $(word 1,$(subst :, ,$(1))) && echo y),\
	$(eval DEP_CFLAGS += -D$(word 2,$(subst :, ,$(1)))=1 $(shell $(PKGCONFIG) --cflags $(word 1,$(subst :, ,$(1)))))\
	$(eval DEP_LIBS += $(shell $(PKGCONFIG) --libs $(word 1,$(subst :, ,$(1))))),\
	$(info note: $(word 1,$(subst :, ,$(1))) not found: '$(word 3,$(subst :, ,$(1)))' is not built (run scripts/install-deps.sh)))
endef
$(foreach d,$(OPT_PKGS),$(call opt_dep,$(d)))

ALL_CFLAGS = $(CPPFLAGS_ALL) $(CPPFLAGS) $(DEP_CFLAGS) $(CFLAGS) $(WARN) $(SANFLAGS) $(DEBUGFLAGS)
ALL_LDFLAGS = $(LDFLAGS) $(SANFLAGS)

LIB_SRC := $(sort $(shell find src -name '*.c' ! -path 'src/cli/*' ! -path 'src/daemon/*' \
	! -path 'src/bin/*'))
# src/bin/ holds main(): the one place that links the front ends together.
CLI_SRC := $(sort $(wildcard src/bin/*.c src/cli/*.c))
# The daemon (src/daemon/) is a front end linked into the vmmprof binary,
# only when libmicrohttpd was found; `vmmprof serve` says so otherwise.
ifneq ($(filter -DHAVE_MHD=1,$(DEP_CFLAGS)),)
CLI_SRC += $(sort $(wildcard src/daemon/*.c))
endif
UNIT_SRC := $(sort $(wildcard tests/unit/*.c))
HELPER_SRC := $(sort $(wildcard tests/helpers/*.c))

LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ := $(CLI_SRC:%.c=$(BUILD)/%.o)
UNIT_OBJ := $(UNIT_SRC:%.c=$(BUILD)/%.o)
HELPERS := $(HELPER_SRC:tests/helpers/%.c=$(BUILD)/helpers/%)

FUZZ_SRC := $(sort $(wildcard tests/fuzz/*.c))
FUZZERS := $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/fuzz/%)

.PHONY: all check unit cli-tests clean install fuzzers cross-arm64
all: $(BUILD)/vmmprof $(BUILD)/vmmprofd $(BUILD)/unit-tests $(HELPERS)

# V=1 shows whole command lines.
ifeq ($(V),1)
Q :=
else
Q := @
endif

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/libvmmprof.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/vmmprof: $(CLI_OBJ) $(BUILD)/libvmmprof.a
	$(CC) $(ALL_LDFLAGS) -o $@ $(CLI_OBJ) $(BUILD)/libvmmprof.a $(DEP_LIBS) $(LDLIBS_ALL)

# vmmprofd is the same binary: main() runs `serve` when called by that name.
$(BUILD)/vmmprofd: $(BUILD)/vmmprof
	ln -sf vmmprof $@

$(BUILD)/unit-tests: $(UNIT_OBJ) $(BUILD)/libvmmprof.a
	$(CC) $(ALL_LDFLAGS) -o $@ $(UNIT_OBJ) $(BUILD)/libvmmprof.a $(DEP_LIBS) $(LDLIBS_ALL)

# Small helper programs the tests run (workloads, fixture generators).
$(BUILD)/helpers/%: tests/helpers/%.c $(BUILD)/libvmmprof.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(BUILD)/libvmmprof.a $(DEP_LIBS) $(LDLIBS_ALL)

# One libFuzzer binary per harness; only meaningful with FUZZ=1.
fuzzers: $(FUZZERS)
$(BUILD)/fuzz/%: tests/fuzz/%.c $(BUILD)/libvmmprof.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -fsanitize=fuzzer -o $@ $< $(BUILD)/libvmmprof.a $(DEP_LIBS) $(LDLIBS_ALL)

# aarch64 cross build for the QEMU testbed's arm64 guest (tests/vm/):
# Debian's cross compiler against the :arm64 -dev packages, found by a
# pkg-config that looks only at the arm64 library directory.  Optional
# dependencies without an :arm64 package are left out of this build.
ARM64_PKGCONFIG := env PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig pkg-config
cross-arm64:
	$(MAKE) CC=aarch64-linux-gnu-gcc PKGCONFIG='$(ARM64_PKGCONFIG)' BUILD=build-arm64 \
		SAN=0 build-arm64/vmmprof

unit: $(BUILD)/unit-tests
	VP_TEST_DATA=tests/data $(BUILD)/unit-tests

cli-tests: $(BUILD)/vmmprof $(BUILD)/vmmprofd $(HELPERS)
	VMMPROF=$(abspath $(BUILD)/vmmprof) VP_HELPERS=$(abspath $(BUILD)/helpers) \
		sh tests/cli/run.sh

check: unit cli-tests

# What users get: the binary (and vmmprofd), every model with the *.inc
# fragments the models include, the web UI, the docs (the systemd unit's
# Documentation= points at daemon.md there), the contrib files (unit,
# configuration, Grafana dashboard) as examples, man pages and completion.
# DESTDIR and PREFIX as usual; tests/cli/t11090 installs into a temporary tree.
DOCDIR ?= $(PREFIX)/share/doc/vmmprof
install: $(BUILD)/vmmprof
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/vmmprof/models \
		$(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(DOCDIR)/contrib/grafana
	install -m 755 $(BUILD)/vmmprof $(DESTDIR)$(PREFIX)/bin/vmmprof
	ln -sf vmmprof $(DESTDIR)$(PREFIX)/bin/vmmprofd
	if [ -d web ]; then install -d $(DESTDIR)$(PREFIX)/share/vmmprof/web && \
		cp -R web/. $(DESTDIR)$(PREFIX)/share/vmmprof/web/; fi
	install -m 644 models/*.model models/*.inc $(DESTDIR)$(PREFIX)/share/vmmprof/models/
	install -m 644 README.md docs/*.md $(DESTDIR)$(DOCDIR)/
	install -m 644 contrib/vmmprofd.service contrib/vmmprofd.conf $(DESTDIR)$(DOCDIR)/contrib/
	install -m 644 contrib/grafana/*.json $(DESTDIR)$(DOCDIR)/contrib/grafana/
	for c in $$($(BUILD)/vmmprof help | awk '/^  [a-z]/ {print $$1}'); do \
		$(BUILD)/vmmprof help --man $$c > $(DESTDIR)$(PREFIX)/share/man/man1/vmmprof-$$c.1 || exit 1; done
	$(BUILD)/vmmprof help --man > $(DESTDIR)$(PREFIX)/share/man/man1/vmmprof.1
	ln -sf vmmprof-serve.1 $(DESTDIR)$(PREFIX)/share/man/man1/vmmprofd.1
	install -d $(DESTDIR)$(PREFIX)/share/bash-completion/completions
	$(BUILD)/vmmprof help --completion bash \
		> $(DESTDIR)$(PREFIX)/share/bash-completion/completions/vmmprof
	ln -sf vmmprof $(DESTDIR)$(PREFIX)/share/bash-completion/completions/vmmprofd

clean:
	rm -rf build build-san build-fuzz build-arm64

-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(UNIT_OBJ:.o=.d)
