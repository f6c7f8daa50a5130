# toibench: build, test, report and benchmark. `make help` lists the targets.

# Every core when no -j is given (make -j1 for one job at a time).
ifeq (,$(filter -j%,$(MAKEFLAGS)))
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 1)
endif

PREFIX ?= /usr/local
DESTDIR ?=
CC ?= cc
CXX ?= c++
CFLAGS ?= -O2 -g
# Project-mandatory flags: kept apart so `make CFLAGS=...` cannot drop them.
# -fno-tree-slp-vectorize: GCC 12 has been seen to emit packed fused
# multiply-adds from straight-line code in FMA-targeted functions despite
# -ffp-contract=off; formulations must compute exactly the operations written.
TOI_CFLAGS := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -Wall -Wextra \
              -ffp-contract=off -fno-fast-math -fno-tree-slp-vectorize -pthread -MMD -MP
BUILD := build
GIT_VERSION := $(shell git describe --always --dirty 2>/dev/null || echo unknown)
# The library's version is TOI_VERSION in include/toibench/toi_api.h; the SONAME
# carries its first number (what changes it: toi_api.h).
VERSION := $(shell sed -n 's/^\#define TOI_VERSION "\(.*\)"/\1/p' include/toibench/toi_api.h)
SOMAJOR := $(firstword $(subst ., ,$(VERSION)))

PKGS := mpfr gmp criterion
# Evaluated lazily so that flags are read after `deps` has installed them.
MPFR_CFLAGS = $(shell pkg-config --cflags mpfr gmp 2>/dev/null)
MPFR_LIBS = $(or $(shell pkg-config --libs mpfr gmp 2>/dev/null),-lmpfr -lgmp)
CRIT_CFLAGS = $(shell pkg-config --cflags criterion 2>/dev/null)
CRIT_LIBS = $(or $(shell pkg-config --libs criterion 2>/dev/null),-lcriterion)
SYS_LIBS := -lm -ldl -pthread

# ---- layers: each folder's objects see only their own headers and those of the layers below ----
# include/toibench (public API) <- src/core <- src/formulations, reference <- src/sim <- src/bench
# <- src/report <- src/cli. See HACKING.md.
INC_core := include/toibench src/core
INC_formulations := $(INC_core) src/formulations
INC_reference := $(INC_core) reference reference/mpfr reference/fast
INC_sim := $(INC_core) src/formulations reference src/sim
INC_bench := $(INC_core) src/formulations reference reference/mpfr reference/fast src/sim src/bench
INC_report := $(INC_bench) src/report
INC_cli := $(INC_report) src/cli
INC_tests := $(INC_cli) tests/support

# `private`: a prerequisite built for one of these targets does not inherit its flags.
$(BUILD)/src/core/%.o: private LAYER_INC := $(INC_core)
$(BUILD)/src/formulations/%.o: private LAYER_INC := $(INC_formulations)
$(BUILD)/reference/%.o: private LAYER_INC := $(INC_reference)
$(BUILD)/src/sim/%.o: private LAYER_INC := $(INC_sim)
$(BUILD)/src/bench/%.o: private LAYER_INC := $(INC_bench)
$(BUILD)/src/report/%.o: private LAYER_INC := $(INC_report)
$(BUILD)/src/cli/%.o: private LAYER_INC := $(INC_cli)
$(BUILD)/tests/%.o: private LAYER_INC := $(INC_tests)
$(BUILD)/bench_fastref: private LAYER_INC := $(INC_cli)
# Only the reference (and the tests and benchmarks that check it) use MPFR and GMP.
$(BUILD)/reference/%.o $(BUILD)/tests/%.o $(BUILD)/bench_fastref: private LAYER_CFLAGS = $(MPFR_CFLAGS)

# The library: every object below src/cli, position-independent so that the
# same objects make the archive and the shared library.
LIB_DIRS := src/core src/formulations src/sim src/bench reference reference/mpfr reference/fast
# A formulation is a folder, src/formulations/NAME/ (HACKING.md): found here, no Makefile edit.
# Its own test, NAME/test_NAME.c, is built with the tests, not into the library.
FORM_TEST_SRC := $(wildcard src/formulations/*/test_*.c)
LIB_SRC := $(foreach d,$(LIB_DIRS),$(wildcard $(d)/*.c)) \
  $(filter-out $(FORM_TEST_SRC),$(wildcard src/formulations/*/*.c))
# The report (src/report) is a layer of the command, linked with src/cli, not in the library.
CLI_SRC := $(wildcard src/report/*.c src/cli/*.c)
# The tests' folders follow the source layers (tests/support, solvers, fuzz, mutants hold no suites),
# and their subfolders the layers' own (tests/reference/fast/ for reference/fast/).
TEST_DIRS := core formulations reference sim bench report cli
TEST_SRC := $(foreach d,$(TEST_DIRS),$(wildcard tests/$(d)/*.c tests/$(d)/*/*.c))
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ := $(CLI_SRC:%.c=$(BUILD)/%.o)
TEST_OBJ := $(TEST_SRC:%.c=$(BUILD)/%.o) $(FORM_TEST_SRC:src/%.c=$(BUILD)/tests/%.o)
# Hidden by default: the shared library exports the functions marked TOI_API
# in include/toibench/ and nothing else (toibench.map gives them a version).
$(LIB_OBJ): private LAYER_PIC := -fPIC -fno-semantic-interposition -fvisibility=hidden

LIBTOIBENCH_A := $(BUILD)/libtoibench.a
LIBTOIBENCH_SO := $(BUILD)/libtoibench.so
SONAME := libtoibench.so.$(SOMAJOR)
LIBTOIBENCH_SO_REAL := $(BUILD)/libtoibench.so.$(VERSION)
TOIBENCH := $(BUILD)/toibench
TESTBIN := $(BUILD)/toitest

APT_PKGS := libmpfr-dev libgmp-dev libcriterion-dev gnuplot-nox pkg-config time

.PHONY: all libs deps check-deps test test-install examples engines engine-deps engine-libs report report-check bench \
        install uninstall clean help tsan

## all: build build/toibench, build/libtoibench.a and build/libtoibench.so
all: $(TOIBENCH) libs

## libs: build build/libtoibench.a and build/libtoibench.so.VERSION (SONAME libtoibench.so.MAJOR) with its links
libs: $(LIBTOIBENCH_A) $(LIBTOIBENCH_SO)

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

## check-deps: run `make deps` when pkg-config, gnuplot or /usr/bin/time (make bench) says something is missing
check-deps:
	@if pkg-config --exists $(PKGS) 2>/dev/null && command -v gnuplot >/dev/null 2>&1 && [ -x /usr/bin/time ]; then :; \
	else $(MAKE) --no-print-directory deps; fi

COMPILE = $(CC) $(CFLAGS) $(TOI_CFLAGS) $(LAYER_PIC) $(addprefix -I,$(LAYER_INC)) $(LAYER_CFLAGS)

$(BUILD)/%.o: %.c | check-deps
	@mkdir -p $(dir $@)
	$(COMPILE) -c $< -o $@

# The report names the version and flags it was built with: rebuilt when a
# commit or checkout changes what git describe says.
$(BUILD)/src/report/report_write.o $(BUILD)/src/cli/main.o: $(BUILD)/%.o: %.c $(wildcard .git/HEAD .git/index) | check-deps
	@mkdir -p $(dir $@)
	$(COMPILE) -DTOI_GIT_VERSION='"$(GIT_VERSION)"' \
	  -DTOI_BUILD_FLAGS='"$(CFLAGS) -ffp-contract=off -fno-fast-math -fno-tree-slp-vectorize"' -c $< -o $@

$(BUILD)/tests/%.o: tests/%.c | check-deps
	@mkdir -p $(dir $@)
	$(COMPILE) -D_XOPEN_SOURCE=700 $(CRIT_CFLAGS) -DTOIBENCH_PATH='"$(abspath $(TOIBENCH))"' \
	  -DTOI_SOURCE_DIR='"$(abspath .)"' -c $< -o $@

# A formulation's own test (src/formulations/NAME/test_NAME.c), compiled as the tests are.
$(BUILD)/tests/formulations/%.o: src/formulations/%.c | check-deps
	@mkdir -p $(dir $@)
	$(COMPILE) -D_XOPEN_SOURCE=700 $(CRIT_CFLAGS) -DTOIBENCH_PATH='"$(abspath $(TOIBENCH))"' \
	  -DTOI_SOURCE_DIR='"$(abspath .)"' -c $< -o $@

$(LIBTOIBENCH_A): $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

# Every symbol must resolve: the library depends on nothing of the command line.
$(LIBTOIBENCH_SO_REAL): $(LIB_OBJ) toibench.map
	$(CC) $(CFLAGS) -shared -Wl,-soname,$(SONAME) -Wl,--no-undefined -Wl,--version-script=toibench.map \
	  -o $@ $(LIB_OBJ) \
	  $(MPFR_LIBS) $(SYS_LIBS)

$(LIBTOIBENCH_SO): $(LIBTOIBENCH_SO_REAL)
	ln -sf $(notdir $<) $(BUILD)/$(SONAME)
	ln -sf $(SONAME) $@

# The command and the tests link the archive: the binary needs no installed library.
$(TOIBENCH): $(CLI_OBJ) $(LIBTOIBENCH_A)
	$(CC) $(CFLAGS) $(TOI_CFLAGS) -o $@ $(CLI_OBJ) $(LIBTOIBENCH_A) $(MPFR_LIBS) $(SYS_LIBS)

# Tests link the command-line modules too, all but main().
CLI_LIB_OBJ := $(filter-out $(BUILD)/src/cli/main.o,$(CLI_OBJ))

# The solver tests run deliberately broken solvers and the examples.
TEST_SOLVERS := $(patsubst tests/solvers/%.c,$(BUILD)/tests/solvers/%,$(wildcard tests/solvers/*_cmd.c)) \
                $(patsubst tests/solvers/%.c,$(BUILD)/tests/solvers/%.so,$(wildcard tests/solvers/*_plugin.c)) \
                $(BUILD)/tests/solvers/abi_old/abi3_plugin.so
EXAMPLES := $(BUILD)/examples/solver_c $(BUILD)/examples/example_plugin.so $(BUILD)/examples/score_solver

# tests/core/test_exports.c reads the shared library beside the command.
$(TESTBIN): $(TEST_SOLVERS) $(EXAMPLES) $(LIBTOIBENCH_SO)
$(TESTBIN): $(TEST_OBJ) $(CLI_LIB_OBJ) $(LIBTOIBENCH_A) $(TOIBENCH)
	$(CC) $(CFLAGS) $(TOI_CFLAGS) -o $@ $(TEST_OBJ) $(CLI_LIB_OBJ) $(LIBTOIBENCH_A) $(MPFR_LIBS) $(CRIT_LIBS) \
	  $(SYS_LIBS)

## test: build everything, run the Criterion suite (TOI_TEST_SCALE multiplies iteration counts), then test-install
test: $(TESTBIN) libs | check-deps
	@$(if $(MPI_OK),:,echo "test: no $(MPICC) or $(MPIRUN): the toibench-mpi tests are skipped ('make mpi' installs Open MPI)")
	$(TEST_ENV) $(TESTBIN) -j2 --short-filename
	@$(MAKE) --no-print-directory test-install

## test-install: install into a temporary prefix under build/, build examples/score_solver.c with pkg-config alone (shared and static), run it, uninstall
test-install: all
	MAKE="$(MAKE)" CC="$(CC)" sh tests/test_install.sh

## mutate: each mutant of tests/mutants/mutants.list alone in a copy of the tree (build/mutate/), built and run against the suite; prints the kill rate, fails below MUTATE_MIN percent (95)
.PHONY: mutate
mutate: | check-deps
	sh tests/mutants/run.sh

$(BUILD)/tests/solvers/%_cmd: tests/solvers/%_cmd.c examples/solver_c/ball_toi.h $(wildcard tests/solvers/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -std=c11 -D_DEFAULT_SOURCE -Wall -Wextra -Iexamples/solver_c -o $@ $< -lm

# Built against the released ABI 3 header copied beside it, not include/toibench (tests/bench/test_plugin_abi.c).
$(BUILD)/tests/solvers/abi_old/abi3_plugin.so: tests/solvers/abi_old/abi3_plugin.c tests/solvers/abi_old/toi_solver.h examples/solver_c/ball_toi.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -std=c11 -D_DEFAULT_SOURCE -Wall -Wextra -shared -fPIC -Iexamples/solver_c -o $@ $< -lm

$(BUILD)/tests/solvers/%_plugin.so: tests/solvers/%_plugin.c include/toibench/toi_solver.h examples/solver_c/ball_toi.h $(wildcard tests/solvers/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -std=c11 -D_DEFAULT_SOURCE -Wall -Wextra -shared -fPIC -Iinclude/toibench -Iexamples/solver_c -o $@ $< -lm

## examples: build the examples: build/examples/solver_c (subprocess), example_plugin.so, score_solver (library API)
examples: $(EXAMPLES)

$(BUILD)/examples/solver_c: examples/solver_c/solver.c examples/solver_c/ball_toi.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -std=c11 -Wall -Wextra -o $@ $< -lm

$(BUILD)/examples/example_plugin.so: examples/solver_c/plugin.c examples/solver_c/ball_toi.h include/toibench/toi_solver.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -std=c11 -Wall -Wextra -shared -fPIC -Iinclude -o $@ $< -lm

# A user's program, built against the tree as it would be against an installed
# copy (<toibench/...> headers); test-install builds it with pkg-config alone.
$(BUILD)/examples/score_solver: examples/score_solver.c $(LIBTOIBENCH_A) $(wildcard include/toibench/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Wall -Wextra -Iinclude -o $@ $< $(LIBTOIBENCH_A) $(MPFR_LIBS) $(SYS_LIBS)

# ---- engines: one folder per adapter, engines/NAME/engine.mk ----
# An engine.mk sets, all optional:
#   ENGINE_APT   Debian packages it needs (make engines installs them)
#   ENGINE_CMD   commands it needs, as COMMAND:DEBIAN_PACKAGE
#   ENGINE_SRC   the adapter's source (default: engines/NAME/adapter.c or adapter.cpp)
#   ENGINE_PC    pkg-config packages giving its compile and link flags
#   ENGINE_CFLAGS, ENGINE_LIBS  further compile and link flags
#   ENGINE_NPM   node scripts instead of a source: npm ci from the folder's
#                package-lock.json, and their --manifest lines as NAME.solvers
# It builds build/engines/NAME.so (or NAME.solvers), the file name the engine
# registry scans build/engines/ for. `make engines ENGINES="box2d gsl"` builds some.
ENGINE_DIR := $(BUILD)/engines
ENGINES := $(patsubst engines/%/engine.mk,%,$(wildcard engines/*/engine.mk))
ENGINE_FLAGS := -O2 -g -Wall -Wextra -ffp-contract=off -fPIC -shared -Iinclude/toibench -Iengines
ENGINE_HDRS := engines/engine_common.h include/toibench/toi_solver.h

define engine_load
ENGINE_APT :=
ENGINE_CMD :=
ENGINE_SRC := $$(wildcard engines/$(1)/adapter.c engines/$(1)/adapter.cpp)
ENGINE_PC :=
ENGINE_CFLAGS :=
ENGINE_LIBS :=
ENGINE_NPM :=
include engines/$(1)/engine.mk
ENGINE_$(1)_APT := $$(ENGINE_APT)
ENGINE_$(1)_CMD := $$(ENGINE_CMD)
ENGINE_$(1)_SRC := $$(ENGINE_SRC)
ENGINE_$(1)_PC := $$(ENGINE_PC)
ENGINE_$(1)_CFLAGS := $$(ENGINE_CFLAGS)
ENGINE_$(1)_LIBS := $$(ENGINE_LIBS)
ENGINE_$(1)_NPM := $$(ENGINE_NPM)
ENGINE_$(1)_OUT := $(ENGINE_DIR)/$(1).$$(if $$(ENGINE_NPM),solvers,so)
endef
$(foreach e,$(ENGINES),$(eval $(call engine_load,$(e))))

# A C or C++ adapter: one shared library. pkg-config runs when the recipe does,
# after engine-deps has installed the packages.
define engine_so_rule
$(ENGINE_DIR)/$(1).so: $(ENGINE_$(1)_SRC) $(ENGINE_HDRS) engines/$(1)/engine.mk
	@mkdir -p $$(dir $$@)
	$(if $(filter %.cpp,$(ENGINE_$(1)_SRC)),$$(CXX) -std=c++11,$$(CC) -std=c11) $$(ENGINE_FLAGS) \
	  $(ENGINE_$(1)_CFLAGS) $$(if $(ENGINE_$(1)_PC),$$(shell pkg-config --cflags $(ENGINE_$(1)_PC))) -o $$@ $$< \
	  $(ENGINE_$(1)_LIBS) $$(if $(ENGINE_$(1)_PC),$$(shell pkg-config --libs $(ENGINE_$(1)_PC))) -lm
endef

# A node adapter: its folder copied to build/engines/NAME/ (the scripts find
# node_modules beside them), npm ci there, and the manifest the registry reads.
# A folder without its own protocol.js gets engines/node/protocol.js. An engine
# whose packages npm cannot install is skipped with a message; the others build.
define engine_npm_rule
ENGINE_$(1)_FILES := $(wildcard engines/$(1)/*.js engines/$(1)/package.json engines/$(1)/package-lock.json)
ifeq ($(wildcard engines/$(1)/protocol.js),)
ENGINE_$(1)_FILES += engines/$(1)/protocol.js
$(ENGINE_DIR)/$(1)/protocol.js: engines/node/protocol.js
	@mkdir -p $$(dir $$@)
	cp $$< $$@
endif
$(ENGINE_DIR)/$(1)/%: engines/$(1)/%
	@mkdir -p $$(dir $$@)
	cp $$< $$@
$(ENGINE_DIR)/$(1)/node_modules/.package-lock.json: $(ENGINE_DIR)/$(1)/package.json $(ENGINE_DIR)/$(1)/package-lock.json
	(cd $(ENGINE_DIR)/$(1) && npm ci --no-audit --no-fund --loglevel=error) || \
	  { rm -rf $(ENGINE_DIR)/$(1)/node_modules; echo "engines: skipping $(1): npm ci could not install its packages"; }
$(ENGINE_DIR)/$(1).solvers: $(ENGINE_DIR)/$(1)/node_modules/.package-lock.json \
                            $$(patsubst engines/%,$(ENGINE_DIR)/%,$$(ENGINE_$(1)_FILES)) engines/$(1)/engine.mk
	@if [ ! -f $(ENGINE_DIR)/$(1)/node_modules/.package-lock.json ]; then rm -f $$@; exit 0; fi; \
	for s in $(ENGINE_$(1)_NPM); do node $(ENGINE_DIR)/$(1)/$$$$s --manifest || exit 1; done > $$@.tmp && mv $$@.tmp $$@
endef
$(foreach e,$(ENGINES),$(eval $(call $(if $(ENGINE_$(e)_NPM),engine_npm_rule,engine_so_rule),$(e))))

# FCL called directly, as its users do (tests/bench/test_engines_direct.c compares the adapter with it).
$(ENGINE_DIR)/fcl-direct: tests/bench/engines/fcl_direct.cpp $(ENGINE_DIR)/fcl.so
	$(CXX) -std=c++11 -O2 -ffp-contract=off $(shell pkg-config --cflags fcl 2>/dev/null) -o $@ $< \
	  $(shell pkg-config --libs fcl 2>/dev/null) -lm

## engines: install the engines' Debian and npm packages, build each engines/NAME/ under build/engines/
engines: engine-deps
	@$(MAKE) --no-print-directory engine-libs
	@if [ -f $(ENGINE_DIR)/fcl.so ]; then $(MAKE) --no-print-directory $(ENGINE_DIR)/fcl-direct; fi
	@built=""; skipped=""; for o in $(foreach e,$(ENGINES),$(e):$(ENGINE_$(e)_OUT)); do \
	  if [ -f "$${o#*:}" ]; then built="$$built $${o%%:*}"; else skipped="$$skipped $${o%%:*}"; fi; done; \
	echo "engines: built$${built:- nothing}$${skipped:+; skipped$$skipped}; 'build/toibench list' shows them"

## engine-deps: install the Debian packages and commands the engines' engine.mk files name
engine-deps:
	@missing=""; \
	for p in $(sort $(foreach e,$(ENGINES),$(ENGINE_$(e)_APT))); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	for cp in $(sort $(foreach e,$(ENGINES),$(ENGINE_$(e)_CMD))); do \
	  command -v $${cp%%:*} >/dev/null 2>&1 || missing="$$missing $${cp#*:}"; \
	done; \
	if [ -z "$$missing" ]; then echo "engines: packages present for $(ENGINES)"; exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then \
	  echo "engines: installing$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	else \
	  echo "engines: missing$$missing; run as root:"; \
	  echo "  apt-get update && apt-get install -y$$missing"; exit 1; \
	fi

## engine-libs: build the engine adapters without checking their packages first
engine-libs: $(foreach e,$(ENGINES),$(ENGINE_$(e)_OUT))

## report: run the built-in default suite and write the report under reports/
report: $(TOIBENCH) | check-deps
	$(TOIBENCH) report

## report-check: open reports/out/index.html (made when missing) in headless Chromium, installed as root when missing: every image loaded, no error, reports/out/screenshot.png
report-check: $(TOIBENCH) | check-deps
	@command -v chromium >/dev/null 2>&1 || if [ "$$(id -u)" = 0 ]; then apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; else echo "report-check: chromium is missing;" \
	  "as root: apt-get update && apt-get install -y chromium"; exit 1; fi
	@test -f reports/out/index.html || $(TOIBENCH) report
	$(TOIBENCH) report --check reports/out

## bench: measure throughput and memory, as ratios against baselines in the same run
bench: $(TOIBENCH)
	bash reports/bench.sh $(TOIBENCH)

# ---- fast reference engine: bit-identity and speed against the MPFR engine ----
# build/bench_fastref (bench/bench_fastref.c) solves the same cases with both
# engines of the reference; reports/bench.sh runs it as its last section.
BENCH_FASTREF := $(BUILD)/bench_fastref

$(BENCH_FASTREF): bench/bench_fastref.c $(LIBTOIBENCH_A) | check-deps
	@mkdir -p $(dir $@)
	$(COMPILE) -o $@ $< $(LIBTOIBENCH_A) $(MPFR_LIBS) $(SYS_LIBS)

bench: $(BENCH_FASTREF)
# ---- end of the fast reference block ----

# build/bench_numparse CASEFILE: toi_parse_double against strtod and the
# number writers against snprintf on a case file's numbers.
BENCH_NUMPARSE := $(BUILD)/bench_numparse
$(BENCH_NUMPARSE): private LAYER_INC := $(INC_core)

$(BENCH_NUMPARSE): bench/bench_numparse.c $(LIBTOIBENCH_A) | check-deps
	@mkdir -p $(dir $@)
	$(COMPILE) -o $@ $< $(LIBTOIBENCH_A) $(MPFR_LIBS) $(SYS_LIBS)

bench: $(BENCH_NUMPARSE)

# build/bench_solverpath BUILD: the external solver path (plug-in, binary and
# text commands) against the same kernel built in, and the node engines'
# bench time against their own; reports/bench.sh runs it.
BENCH_SOLVERPATH := $(BUILD)/bench_solverpath
$(BENCH_SOLVERPATH): private LAYER_INC := include/toibench
$(BENCH_SOLVERPATH): bench/bench_solverpath.c examples/solver_c/ball_toi.h $(LIBTOIBENCH_A) | check-deps
	@mkdir -p $(dir $@)
	$(COMPILE) -o $@ $< $(LIBTOIBENCH_A) $(MPFR_LIBS) $(SYS_LIBS)

bench: $(BENCH_SOLVERPATH) $(BUILD)/examples/solver_c $(BUILD)/examples/example_plugin.so

# Installed engines: the shared libraries, and each node adapter's folder with
# its manifest rewritten to name the installed scripts.
ENGINE_INST := $(DESTDIR)$(PREFIX)/lib/toibench/engines

## install: install toibench, libtoibench (.a, .so), the headers, toibench.pc, the report scripts and built engines under $(DESTDIR)$(PREFIX)
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include/toibench \
	  $(DESTDIR)$(PREFIX)/share/toibench/reports
	install -m 755 $(TOIBENCH) $(DESTDIR)$(PREFIX)/bin/toibench
	install -m 644 $(LIBTOIBENCH_A) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(LIBTOIBENCH_SO_REAL) $(DESTDIR)$(PREFIX)/lib/
	ln -sf $(notdir $(LIBTOIBENCH_SO_REAL)) $(DESTDIR)$(PREFIX)/lib/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(PREFIX)/lib/libtoibench.so
	install -m 644 include/toibench/*.h $(DESTDIR)$(PREFIX)/include/toibench/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' toibench.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/toibench.pc
	install -m 644 reports/*.gp $(DESTDIR)$(PREFIX)/share/toibench/reports/
	install -d $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -m 644 doc/toibench.1 $(DESTDIR)$(PREFIX)/share/man/man1/toibench.1
	install -m 644 doc/toibench.bash-completion $(DESTDIR)$(PREFIX)/share/bash-completion/completions/toibench
	@for e in $(ENGINES); do \
	  if [ -f $(ENGINE_DIR)/$$e.so ]; then \
	    install -d $(ENGINE_INST) && install -m 755 $(ENGINE_DIR)/$$e.so $(ENGINE_INST)/ || exit 1; \
	    echo "install: engine $$e"; \
	  elif [ -f $(ENGINE_DIR)/$$e.solvers ]; then \
	    install -d $(ENGINE_INST) && rm -rf $(ENGINE_INST)/$$e && cp -R $(ENGINE_DIR)/$$e $(ENGINE_INST)/$$e && \
	    sed "s|'$(abspath $(ENGINE_DIR))/|'$(PREFIX)/lib/toibench/engines/|g" $(ENGINE_DIR)/$$e.solvers \
	      > $(ENGINE_INST)/$$e.solvers || exit 1; \
	    echo "install: engine $$e"; \
	  fi; \
	done

## uninstall: remove what install put in place
uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/toibench $(DESTDIR)$(PREFIX)/lib/libtoibench.a \
	  $(DESTDIR)$(PREFIX)/lib/libtoibench.so $(DESTDIR)$(PREFIX)/lib/$(SONAME) \
	  $(DESTDIR)$(PREFIX)/lib/$(notdir $(LIBTOIBENCH_SO_REAL)) $(DESTDIR)$(PREFIX)/lib/pkgconfig/toibench.pc
	rm -f $(DESTDIR)$(PREFIX)/share/man/man1/toibench.1 $(DESTDIR)$(PREFIX)/share/bash-completion/completions/toibench
	rm -rf $(DESTDIR)$(PREFIX)/include/toibench $(DESTDIR)$(PREFIX)/share/toibench $(DESTDIR)$(PREFIX)/lib/toibench

## clean: remove build/ and generated report output
clean:
	rm -rf $(BUILD) reports/out

## help: list the targets
help:
	@grep -hE '^## ' Makefile | sed 's/^## /  make /'

# ---- toibench-mpi: sweep and hunt shared among the processes of an MPI job (src/mpi/; doc/cluster.md).
# build/toibench-mpi links the library and the command modules with MPI; toibench does not. ----
MPICC ?= mpicc
MPIRUN ?= mpirun
MPI_APT := libopenmpi-dev openmpi-bin
TOIBENCH_MPI := $(BUILD)/toibench-mpi
MPI_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(wildcard src/mpi/*.c))
# 1 when MPI can be built and run here: `make test` then builds toibench-mpi and runs tests/cli/test_mpi.c.
MPI_OK := $(shell command -v $(MPICC) >/dev/null 2>&1 && command -v $(MPIRUN) >/dev/null 2>&1 && echo 1)

.PHONY: mpi mpi-deps

## mpi: install Open MPI (libopenmpi-dev, openmpi-bin) when missing, then build build/toibench-mpi
mpi: mpi-deps
	@$(MAKE) --no-print-directory $(TOIBENCH_MPI)

mpi-deps:
	@command -v $(MPICC) >/dev/null 2>&1 && command -v $(MPIRUN) >/dev/null 2>&1 || \
	  $(MAKE) --no-print-directory deps APT_PKGS="$(MPI_APT)"

$(BUILD)/src/mpi/%.o: src/mpi/%.c | check-deps
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) $(TOI_CFLAGS) $(addprefix -I,$(INC_cli) src/mpi) -c $< -o $@

$(TOIBENCH_MPI): $(MPI_OBJ) $(CLI_LIB_OBJ) $(LIBTOIBENCH_A)
	$(MPICC) $(CFLAGS) $(TOI_CFLAGS) -o $@ $(MPI_OBJ) $(CLI_LIB_OBJ) $(LIBTOIBENCH_A) $(MPFR_LIBS) $(SYS_LIBS)

# The tests run it when it can be built (TOIBENCH_MPI empty: tests/cli/test_mpi.c skips, saying so).
test: $(if $(MPI_OK),$(TOIBENCH_MPI))
TEST_ENV := TOIBENCH_MPI=$(if $(MPI_OK),$(abspath $(TOIBENCH_MPI)))
-include $(MPI_OBJ:.o=.d)
# ---- end of the toibench-mpi block ----

# ---- findings: the documents' tables of measured figures are written by their recipes (doc/findings/recipes,
# tools/findings.c); make test checks them (tests/cli/test_findings.c). ----
FINDINGS := $(BUILD)/findings
FINDINGS_DOCS := README.md $(wildcard doc/*.md)

.PHONY: findings

$(FINDINGS): tools/findings.c | check-deps
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(TOI_CFLAGS) -D_XOPEN_SOURCE=700 -o $@ $<

## findings: run every recipe of doc/findings/recipes and write its block in README.md and doc/*.md (engines and MPI when built)
findings: $(FINDINGS) $(TOIBENCH) $(EXAMPLES) $(BENCH_FASTREF) $(BENCH_SOLVERPATH) $(if $(MPI_OK),$(TOIBENCH_MPI))
	$(FINDINGS) --write $(FINDINGS_DOCS)

$(TESTBIN): $(FINDINGS)
# ---- end of the findings block ----

# ---- fuzzing and sanitizers: make fuzz, make sanitize (tests/fuzz/; doc/commands.md, "Fuzzing and sanitizers") ----
# Both build the library again, with other flags, in a directory of its own (BUILD=... on a second make
# of this same Makefile), so that no sanitized object mixes with the normal build.
#
# make fuzz: libFuzzer harnesses (tests/fuzz/fuzz_NAME.c) for the case reader, the state reader, the
# sweep-result reader, the checkpoint reader (its checksum), the subprocess answer parser and compare's
# JSON reader, each linked against the library and the command modules compiled with clang, libFuzzer's
# coverage, ASan and UBSan into build/fuzz/obj/, then each run for FUZZ_SECONDS. New inputs go to
# build/fuzz/corpus/NAME/; the seeds (cases/, tests/fuzz/corpus/NAME/ and the sweep results and states
# made by build/toibench into build/fuzz/seeds/NAME/) are only read.
# A crash stops make with the input saved as build/fuzz/crashes/NAME/crash-*.
FUZZ_SECONDS ?= 30
FUZZ_CC ?= clang
# `dpkg -S libclang_rt.fuzzer`: the libFuzzer runtime is in libclang-rt-14-dev.
FUZZ_APT ?= clang libclang-rt-14-dev
FUZZ_DIR := $(BUILD)/fuzz
FUZZ_OBJ := $(FUZZ_DIR)/obj
FUZZ_NAMES := cases state sweep answer checkpoint json plugin
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
# -DTOI_FMA_CLONES=: one copy of the fma() kernels (src/core/eft.h). Clang 14 names the dispatcher of a
# target_clones function NAME.ifunc when its file does not call it, so toi_f_robust and toi_f_accurate
# would be undefined at link time; glibc's fma gives the same bits as the FMA copy.
FUZZ_LIB_CFLAGS := -O1 -g $(FUZZ_SAN) -fsanitize=fuzzer-no-link -DTOI_FMA_CLONES=
FUZZ_BINS := $(FUZZ_NAMES:%=$(FUZZ_DIR)/fuzz_%)
# Every harness sees the library's headers and the command modules' (solver_cmd.c for fuzz_answer,
# solver_plugin.c for fuzz_plugin).
FUZZ_LIBS := $(FUZZ_OBJ)/libtoibench.a $(FUZZ_DIR)/libtoicli.a
FUZZ_CLI_OBJ := $(patsubst $(BUILD)/%,$(FUZZ_OBJ)/%,$(CLI_LIB_OBJ))
# Extra libFuzzer options for every harness, e.g. FUZZ_FLAGS=-jobs=2 or -dict=FILE.
FUZZ_FLAGS ?=

.PHONY: fuzz fuzz-build fuzz-deps fuzz-lib-objs fuzz-link sanitize

## fuzz: build the libFuzzer harnesses (clang) and run each for FUZZ_SECONDS (default 30); fails on a crash
fuzz: fuzz-build
	@for n in $(FUZZ_NAMES); do \
	  mkdir -p $(FUZZ_DIR)/corpus/$$n $(FUZZ_DIR)/crashes/$$n; \
	  echo "fuzz: $$n for $(FUZZ_SECONDS) s"; \
	  $(FUZZ_DIR)/fuzz_$$n -max_total_time=$(FUZZ_SECONDS) -timeout=10 -print_final_stats=1 \
	    -artifact_prefix=$(FUZZ_DIR)/crashes/$$n/ $(FUZZ_FLAGS) $(FUZZ_DIR)/corpus/$$n $(FUZZ_DIR)/seeds/$$n \
	    $$(test -d tests/fuzz/corpus/$$n && echo tests/fuzz/corpus/$$n) 2>$(FUZZ_DIR)/$$n.log; \
	  rc=$$?; grep -E '^stat::(number_of_executed_units|new_units_added)' $(FUZZ_DIR)/$$n.log; \
	  if [ $$rc != 0 ]; then tail -n 60 $(FUZZ_DIR)/$$n.log; \
	    echo "fuzz: $$n failed (log $(FUZZ_DIR)/$$n.log, input in $(FUZZ_DIR)/crashes/$$n/)"; exit 1; fi; \
	done

## fuzz-build: build the fuzz harnesses and their seed corpora under build/fuzz/ without running them
# The objects first (a second make, BUILD=build/fuzz/obj), then the harnesses against what it left.
fuzz-build: fuzz-deps | check-deps
	@$(MAKE) --no-print-directory BUILD=$(FUZZ_OBJ) CC=$(FUZZ_CC) CFLAGS='$(FUZZ_LIB_CFLAGS)' fuzz-lib-objs
	@$(MAKE) --no-print-directory fuzz-link

fuzz-link: $(FUZZ_BINS) $(FUZZ_DIR)/seeds/.made
	@:

# Run with BUILD=build/fuzz/obj: the library and the command modules (src/bench still calls a few
# cli_* functions).
fuzz-lib-objs: $(LIBTOIBENCH_A) $(CLI_LIB_OBJ)
	@:

# clang and its libFuzzer runtime: a link of an empty harness says whether they work.
fuzz-deps:
	@mkdir -p $(FUZZ_DIR)
	@printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' \
	  > $(FUZZ_DIR)/probe.c
	@$(FUZZ_CC) -fsanitize=fuzzer -o $(FUZZ_DIR)/probe $(FUZZ_DIR)/probe.c 2>/dev/null || \
	  $(MAKE) --no-print-directory deps APT_PKGS="$(FUZZ_APT)"

$(FUZZ_DIR)/libtoicli.a: $(FUZZ_CLI_OBJ)
	@rm -f $@
	ar rcs $@ $^

# The archives are linked as a group: the command modules and src/bench call each other.
$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_LIBS) | check-deps
	$(FUZZ_CC) -O1 -g $(FUZZ_SAN) -fsanitize=fuzzer $(TOI_CFLAGS) $(addprefix -I,$(INC_cli)) -Itests/fuzz \
	  $(MPFR_CFLAGS) -o $@ $< -Wl,--start-group $(FUZZ_LIBS) -Wl,--end-group $(MPFR_LIBS) $(SYS_LIBS)

# Seeds made by the normal build's toibench: small sweep results (a shard, a merge, a step, a reverse
# formulation), also the checkpoint harness's (it gives them their checksum line), and states in 2D and
# 3D; and the case files.
$(FUZZ_DIR)/seeds/.made: $(TOIBENCH) $(wildcard cases/*.cases cases/bad/*.cases)
	@rm -rf $(FUZZ_DIR)/seeds && mkdir -p $(FUZZ_DIR)/seeds/cases $(FUZZ_DIR)/seeds/state \
	  $(FUZZ_DIR)/seeds/sweep $(FUZZ_DIR)/seeds/answer $(FUZZ_DIR)/seeds/checkpoint $(FUZZ_DIR)/seeds/json \
	  $(FUZZ_DIR)/seeds/plugin
	cp cases/*.cases cases/bad/*.cases $(FUZZ_DIR)/seeds/cases/
	cd $(FUZZ_DIR)/seeds/sweep && t=$(abspath $(TOIBENCH)) && \
	  $$t sweep mixed --count 16 -f robust,expanded -j1 --quiet -o mixed && \
	  $$t sweep grazing --count 6 --k 1:3 -f phet-reverse,accurate -j1 --quiet -o grazing && \
	  $$t sweep aimed --count 6 -f accurate --tmax 2 -j1 --quiet -o aimed-tmax && \
	  $$t sweep near-contact --count 8 -f ericson -j1 --quiet --shard 1/2 -o shard1 && \
	  $$t sweep near-contact --count 8 -f ericson -j1 --quiet --shard 2/2 -o shard2 && \
	  $$t merge -o merged shard1 shard2
	cp $(FUZZ_DIR)/seeds/sweep/* $(FUZZ_DIR)/seeds/checkpoint/
	cd $(FUZZ_DIR)/seeds/state && t=$(abspath $(TOIBENCH)) && \
	  $$t simulate -f robust --n 6 --events 1 --write-state state-2d >/dev/null && \
	  $$t simulate -f robust --n 5 --dim 3 --events 1 --seed 7 --write-state state-3d >/dev/null && \
	  $$t simulate -f robust --n 1 --events 1 --write-state state-one >/dev/null
	@touch $@

# make sanitize: the whole Criterion suite built with gcc's ASan and UBSan into build/sanitize/ and run
# there (the tests run build/sanitize/toibench, sanitized too); any report stops the run.
# SANITIZE_ARGS passes options to build/sanitize/toitest, e.g. --filter 'caseio/*'.
SAN_BUILD := $(BUILD)/sanitize
SAN_CFLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined
# handle_segv=0: a plug-in that crashes on purpose does so in a child of the sanitized toibench, and the
# tests expect it to die by SIGSEGV, not by ASan's report and exit 1. Bad accesses are still caught by
# the shadow checks; a stray SIGSEGV still fails its test, without ASan's stack.
# TOIBENCH_REPORTS_DIR: build/sanitize/toibench has no reports/ beside it (build/reports), and the
# report tests run it in folders of their own.
SAN_ENV := ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:handle_segv=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
           LSAN_OPTIONS=suppressions=$(abspath tests/lsan.supp) TOIBENCH_REPORTS_DIR=$(abspath reports)
SANITIZE_ARGS ?=
# The deliberately broken test solvers (tests/solvers/) must crash as they do anywhere, by a signal:
# under ASan their SIGSEGV would become a report and exit 1, and UBSan would stop their null load.
ifeq ($(TOI_SANITIZE),1)
$(BUILD)/tests/solvers/%: override CFLAGS := -O1 -g
endif

## sanitize: build the Criterion suite with -fsanitize=address,undefined into build/sanitize/ and run it
sanitize: | check-deps
	@$(MAKE) --no-print-directory BUILD=$(SAN_BUILD) CFLAGS='$(SAN_CFLAGS)' TOI_SANITIZE=1 $(SAN_BUILD)/toitest
	$(SAN_ENV) $(SAN_BUILD)/toitest -j2 --short-filename $(SANITIZE_ARGS)
# make tsan: the CLI built with gcc's ThreadSanitizer into build/tsan/ (without the FMA clones: an
# instrumented ifunc resolver runs while the program is relocated, before the sanitizer's runtime, and
# crashes), then tests/tsan.sh runs the threaded commands with it and with build/toibench: no race
# reported, the same bytes.
TSAN_BUILD := $(BUILD)/tsan
## tsan: build the CLI with -fsanitize=thread into build/tsan/ and run the threaded commands with it (tests/tsan.sh)
tsan: all
	@$(MAKE) --no-print-directory BUILD=$(TSAN_BUILD) CFLAGS='-O1 -g -fno-omit-frame-pointer -fsanitize=thread -DTOI_FMA_CLONES=' $(TSAN_BUILD)/toibench
	bash tests/tsan.sh $(TSAN_BUILD)/toibench $(BUILD)/toibench $(TSAN_BUILD)/run
-include $(FUZZ_BINS:=.d)
# ---- end of the fuzzing and sanitizers block ----

-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(TEST_OBJ:.o=.d) $(BENCH_FASTREF).d
