# toibench: build, test, report and benchmark. `make help` lists the targets.

PREFIX ?= /usr/local
DESTDIR ?=
CC ?= cc
CFLAGS ?= -O2 -g
# Project-mandatory flags: kept apart so `make CFLAGS=...` cannot drop them.
# -fno-tree-slp-vectorize: GCC 12 has been seen to emit packed fused
# multiply-adds from straight-line code in FMA-targeted functions despite
# -ffp-contract=off; formulations must compute exactly the operations written.
# Layers, bottom up: include/toibench (public API), src/core, src/formulations
# and reference, src/sim, src/bench, src/cli. See HACKING.md.
LIB_DIRS := src/core src/formulations reference reference/mpfr reference/fast src/sim src/bench
TOI_INC := -Iinclude/toibench $(addprefix -I,$(LIB_DIRS)) -Isrc/cli
TOI_CFLAGS := $(TOI_INC) -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -Wall -Wextra \
              -ffp-contract=off -fno-fast-math -fno-tree-slp-vectorize -pthread -MMD -MP
BUILD := build
GIT_VERSION := $(shell git describe --always --dirty 2>/dev/null || echo unknown)

PKGS := mpfr gmp criterion
# Evaluated lazily so that flags are read after `deps` has installed them.
MPFR_CFLAGS = $(shell pkg-config --cflags mpfr gmp 2>/dev/null)
MPFR_LIBS = $(or $(shell pkg-config --libs mpfr gmp 2>/dev/null),-lmpfr -lgmp)
CRIT_CFLAGS = $(shell pkg-config --cflags criterion 2>/dev/null)
CRIT_LIBS = $(or $(shell pkg-config --libs criterion 2>/dev/null),-lcriterion)

LIB_SRC := $(foreach d,src/core src/formulations src/sim src/bench,$(wildcard $(d)/*.c))
REF_SRC := $(foreach d,reference reference/mpfr reference/fast,$(wildcard $(d)/*.c))
CLI_SRC := $(wildcard src/cli/*.c)
TEST_SRC := $(wildcard tests/*.c)
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
REF_OBJ := $(REF_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ := $(CLI_SRC:%.c=$(BUILD)/%.o)
TEST_OBJ := $(TEST_SRC:%.c=$(BUILD)/%.o)

TOIBENCH := $(BUILD)/toibench
LIBTOI := $(BUILD)/libtoi.a
LIBREF := $(BUILD)/libtoiref.a
TESTBIN := $(BUILD)/toitest

APT_PKGS := libmpfr-dev libgmp-dev libcriterion-dev gnuplot-nox pkg-config

.PHONY: all deps check-deps test report bench install uninstall clean help

## all: build build/toibench, build/libtoi.a and build/libtoiref.a
all: $(TOIBENCH) $(LIBTOI) $(LIBREF)

## deps: install missing Debian packages (apt-get as root, else print the command)
deps:
	@missing=""; \
	for p in $(APT_PKGS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then echo "deps: all present ($(APT_PKGS))"; exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then \
	  echo "deps: installing$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	else \
	  echo "deps: missing$$missing; run as root:"; \
	  echo "  apt-get update && apt-get install -y$$missing"; exit 1; \
	fi

check-deps:
	@if pkg-config --exists $(PKGS) 2>/dev/null && command -v gnuplot >/dev/null 2>&1; then :; \
	else $(MAKE) --no-print-directory deps; fi

$(BUILD)/%.o: %.c | check-deps
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(TOI_CFLAGS) $(MPFR_CFLAGS) -c $< -o $@

# The report names the version and flags it was built with: rebuilt when a
# commit or checkout changes what git describe says.
$(BUILD)/src/cli/report_write.o: src/cli/report_write.c $(wildcard .git/HEAD .git/index) | check-deps
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(TOI_CFLAGS) $(MPFR_CFLAGS) -DTOI_GIT_VERSION='"$(GIT_VERSION)"' \
	  -DTOI_BUILD_FLAGS='"$(CFLAGS) -ffp-contract=off -fno-fast-math -fno-tree-slp-vectorize"' -c $< -o $@

$(BUILD)/tests/%.o: tests/%.c | check-deps
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(TOI_CFLAGS) $(MPFR_CFLAGS) $(CRIT_CFLAGS) -DTOIBENCH_PATH='"$(abspath $(TOIBENCH))"' \
	  -DTOI_SOURCE_DIR='"$(abspath .)"' -Itests/support -c $< -o $@

$(LIBTOI): $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(LIBREF): $(REF_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(TOIBENCH): $(CLI_OBJ) $(LIBREF) $(LIBTOI)
	$(CC) $(CFLAGS) $(TOI_CFLAGS) -o $@ $(CLI_OBJ) -Wl,--start-group $(LIBREF) $(LIBTOI) -Wl,--end-group $(MPFR_LIBS) -lm -ldl

# Tests link the command-line modules too (scoring, sweeps), all but main().
CLI_LIB_OBJ := $(filter-out $(BUILD)/src/cli/main.o,$(CLI_OBJ))

# The solver tests run deliberately broken solvers and the examples.
TEST_SOLVERS := $(BUILD)/tests/solvers/misbehave_cmd $(BUILD)/tests/solvers/misbehave_plugin.so \
                $(BUILD)/tests/solvers/wrong_abi_plugin.so
EXAMPLES := $(BUILD)/examples/solver_c $(BUILD)/examples/example_plugin.so

$(TESTBIN): $(TEST_SOLVERS) $(EXAMPLES)
$(TESTBIN): $(TEST_OBJ) $(CLI_LIB_OBJ) $(LIBREF) $(LIBTOI) $(TOIBENCH)
	$(CC) $(CFLAGS) $(TOI_CFLAGS) -o $@ $(TEST_OBJ) $(CLI_LIB_OBJ) -Wl,--start-group $(LIBREF) $(LIBTOI) -Wl,--end-group $(MPFR_LIBS) $(CRIT_LIBS) -lm -ldl

## test: build everything and run the Criterion test suite (TOI_TEST_SCALE multiplies iteration counts)
test: $(TESTBIN) | check-deps
	$(TESTBIN) -j2 --short-filename

$(BUILD)/tests/solvers/%_cmd: tests/solvers/%_cmd.c examples/solver_c/ball_toi.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -std=c11 -D_DEFAULT_SOURCE -Wall -Wextra -Iexamples/solver_c -o $@ $< -lm

$(BUILD)/tests/solvers/%_plugin.so: tests/solvers/%_plugin.c include/toibench/toi_solver.h examples/solver_c/ball_toi.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -std=c11 -D_DEFAULT_SOURCE -Wall -Wextra -shared -fPIC -Iinclude/toibench -Iexamples/solver_c -o $@ $< -lm

.PHONY: examples engines engine-deps engine-libs engine-node

## examples: build the example solvers: build/examples/solver_c (subprocess) and example_plugin.so
examples: $(EXAMPLES)

$(BUILD)/examples/solver_c: examples/solver_c/solver.c examples/solver_c/ball_toi.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -std=c11 -Wall -Wextra -o $@ $< -lm

$(BUILD)/examples/example_plugin.so: examples/solver_c/plugin.c examples/solver_c/ball_toi.h include/toibench/toi_solver.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -std=c11 -Wall -Wextra -shared -fPIC -Iinclude/toibench -o $@ $< -lm

# Engines: Debian's libraries (Bullet ships float and float64 builds), npm's packages.
ENGINE_APT := libchipmunk-dev libbox2d-dev libbullet-dev libgsl-dev
ENGINE_DIR := $(BUILD)/engines
ENGINE_FLAGS := -O2 -g -Wall -Wextra -ffp-contract=off -fPIC -shared -Iinclude/toibench -Iengines
ENGINE_LIBS := $(ENGINE_DIR)/chipmunk.so $(ENGINE_DIR)/gsl.so $(ENGINE_DIR)/box2d.so $(ENGINE_DIR)/bullet.so \
               $(ENGINE_DIR)/bullet64.so
ENGINE_HDRS := engines/engine_common.h include/toibench/toi_solver.h
NODE_STAMP := engines/node/node_modules/.package-lock.json

## engines: install the engines' Debian and npm packages, build their adapters under build/engines/
engines: engine-deps
	@$(MAKE) --no-print-directory engine-libs engine-node
	@echo "engines: built; 'build/toibench list' shows them"

engine-deps:
	@missing=""; \
	for p in $(ENGINE_APT); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	command -v node >/dev/null 2>&1 || missing="$$missing nodejs"; \
	command -v npm >/dev/null 2>&1 || missing="$$missing npm"; \
	if [ -z "$$missing" ]; then echo "engines: packages present ($(ENGINE_APT), node, npm)"; exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then \
	  echo "engines: installing$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	else \
	  echo "engines: missing$$missing; run as root:"; \
	  echo "  apt-get update && apt-get install -y$$missing"; exit 1; \
	fi

engine-libs: $(ENGINE_LIBS)

$(ENGINE_DIR)/chipmunk.so: engines/chipmunk.c $(ENGINE_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(ENGINE_FLAGS) -std=c11 -o $@ $< -lchipmunk -lm

$(ENGINE_DIR)/gsl.so: engines/gsl.c $(ENGINE_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(ENGINE_FLAGS) -std=c11 -o $@ $< $$(pkg-config --libs gsl) -lm

$(ENGINE_DIR)/box2d.so: engines/box2d.cpp $(ENGINE_HDRS)
	@mkdir -p $(dir $@)
	$(CXX) $(ENGINE_FLAGS) -std=c++11 -o $@ $< -lbox2d

$(ENGINE_DIR)/bullet.so: engines/bullet.cpp $(ENGINE_HDRS)
	@mkdir -p $(dir $@)
	$(CXX) $(ENGINE_FLAGS) -std=c++11 $$(pkg-config --cflags bullet) -o $@ $< $$(pkg-config --libs bullet)

$(ENGINE_DIR)/bullet64.so: engines/bullet.cpp $(ENGINE_HDRS)
	@mkdir -p $(dir $@)
	$(CXX) $(ENGINE_FLAGS) -std=c++11 $$(pkg-config --cflags bullet-float64) -o $@ $< \
	  $$(pkg-config --libs bullet-float64)

# The node adapters are listed in a manifest the engine registry reads.
engine-node: $(ENGINE_DIR)/node.solvers

$(NODE_STAMP): engines/node/package.json engines/node/package-lock.json
	cd engines/node && npm ci --no-audit --no-fund --loglevel=error

$(ENGINE_DIR)/node.solvers: $(NODE_STAMP) engines/node/planck.js engines/node/rapier.js engines/node/protocol.js
	@mkdir -p $(dir $@)
	{ node engines/node/planck.js --manifest && node engines/node/rapier.js --manifest; } > $@.tmp
	mv $@.tmp $@

## report: run the built-in default suite and write the report under reports/
report: $(TOIBENCH) | check-deps
	$(TOIBENCH) report

## bench: measure throughput and memory, as ratios against baselines in the same run
bench: $(TOIBENCH)
	bash reports/bench.sh $(TOIBENCH)

# ---- fast reference engine: bit-identity and speed against the MPFR engine ----
# build/bench_fastref (bench/bench_fastref.c) solves the same cases with both
# engines of the reference; reports/bench.sh runs it as its last section.
BENCH_FASTREF := $(BUILD)/bench_fastref

$(BENCH_FASTREF): bench/bench_fastref.c $(LIBREF) $(LIBTOI) | check-deps
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(TOI_CFLAGS) $(MPFR_CFLAGS) -o $@ $< $(LIBREF) $(LIBTOI) $(MPFR_LIBS) -lm

bench: $(BENCH_FASTREF)
# ---- end of the fast reference block ----

## install: install toibench, the libraries and headers under $(DESTDIR)$(PREFIX)
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include/toibench
	install -m 755 $(TOIBENCH) $(DESTDIR)$(PREFIX)/bin/toibench
	install -m 644 $(LIBTOI) $(LIBREF) $(DESTDIR)$(PREFIX)/lib/
	install -m 644 include/toibench/*.h $(DESTDIR)$(PREFIX)/include/toibench/
	install -d $(DESTDIR)$(PREFIX)/share/toibench/reports
	install -m 644 reports/*.gp $(DESTDIR)$(PREFIX)/share/toibench/reports/
	@if [ -d $(ENGINE_DIR) ]; then \
	  install -d $(DESTDIR)$(PREFIX)/lib/toibench/engines && \
	  install -m 644 $(ENGINE_DIR)/*.so $(DESTDIR)$(PREFIX)/lib/toibench/engines/ && \
	  echo "install: engines installed (the node manifest names scripts in this source tree)"; fi

## uninstall: remove what install put in place
uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/toibench $(DESTDIR)$(PREFIX)/lib/libtoi.a $(DESTDIR)$(PREFIX)/lib/libtoiref.a
	rm -rf $(DESTDIR)$(PREFIX)/include/toibench $(DESTDIR)$(PREFIX)/share/toibench $(DESTDIR)$(PREFIX)/lib/toibench

## clean: remove build/ and generated report output
clean:
	rm -rf $(BUILD) reports/out

## help: list the targets
help:
	@grep -hE '^## ' $(MAKEFILE_LIST) | sed 's/^## /  make /'

-include $(LIB_OBJ:.o=.d) $(REF_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(TEST_OBJ:.o=.d)
