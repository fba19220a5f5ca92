#!/usr/bin/env python3
"""Opens `stroll serve --http`'s live view in headless Chromium (Debian's
chromium and chromium-driver, through selenium) while a walk replays, checks
that the walker marker moves and the first row of a ranking changes as events
arrive, that Pause holds the walker and Resume lets it go on, and saves a
screenshot.

    python3 Tests/IntegrationTests/browser/check_live.py STROLL OUT_DIR [--selftest]

Then the live view of a walk on the Monaco extract's streets (`stroll route`
writes it, `stroll serve --osm monaco-latest.osm.pbf` serves it with the
extract's cafes and restaurants as places): its map must draw street paths
under the walk and inside the map, and no two shown labels may overlap.

With --selftest the check is first shown failing on a live view whose walker
stands still (the same server on a walk of thirty fixes at one spot): it must
report that the walker did not move and that the first row never changed;
and on the Monaco walk served without --osm: it must report that no streets
are drawn.
"""
import os
import re
import subprocess
import sys
import time

from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser import check_map, chromium, console_errors  # noqa: E402

def serve(stroll, walk, options):
    """`stroll serve` of `walk`, waiting for one client; and its page's address."""
    server = subprocess.Popen([stroll, "serve", walk, "--gpsd", "127.0.0.1:0", "--http", "127.0.0.1:0", "--speed", "40",
                               "--wait-for-clients", "1"] + options, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    url = None
    for line in server.stdout:
        m = re.match(r"serving http on (127\.0\.0\.1:\d+)", line)
        if m:
            url = f"http://{m.group(1)}/"
        if line.startswith("replaying"):
            break
    return server, url


def check(stroll, walk, shot, deadline=30):
    """The failures of the live view of `stroll serve` replaying `walk`."""
    server, url = serve(stroll, walk, ["--select", "Leaf"])
    driver = chromium()
    failures = []

    def walker():
        w = driver.find_element(By.ID, "walker")
        return (w.get_attribute("cx"), w.get_attribute("cy"))

    def first_row():
        # The table is refilled as events arrive: a row found a moment ago may be gone.
        for _ in range(5):
            try:
                rows = driver.find_elements(By.CSS_SELECTOR, "#rankings table tr.first")
                return rows[0].text if rows else ""
            except StaleElementReferenceException:
                continue
        return ""

    def wait_for(condition, seconds):
        limit = time.time() + seconds
        while time.time() < limit:
            if condition():
                return True
            time.sleep(0.1)
        return False

    try:
        if url is None:
            raise RuntimeError("stroll serve did not print its http address")
        driver.get(url)
        if not wait_for(lambda: walker() != ("-100", "-100"), 15):
            failures.append("the walker never appeared")
        positions, rows = {walker()}, {first_row()}
        limit = time.time() + deadline
        while time.time() < limit and (len(positions) < 5 or len(rows) < 2):
            positions.add(walker())
            rows.add(first_row())
            time.sleep(0.1)
        if len(positions) < 5:
            failures.append(f"the walker moved to only {len(positions)} places")
        if len(rows) < 2:
            failures.append(f"the first row of the ranking never changed: {rows}")
        if not failures:
            driver.find_element(By.ID, "pause").click()
            time.sleep(1.0)
            held = walker()
            time.sleep(1.5)
            if walker() != held:
                failures.append("Pause did not hold the walker")
            if shot:
                driver.save_screenshot(shot)
            driver.find_element(By.ID, "resume").click()
            if not wait_for(lambda: walker() != held, 10):
                failures.append("Resume did not let the walker go on")
        errors = console_errors(driver)
        if errors:
            failures.append(f"console errors: {errors}")
        print(f"walker at {len(positions)} places; first rows seen: {sorted(r for r in rows if r)[:4]}")
    finally:
        driver.quit()
        server.terminate()
        server.wait(timeout=10)
    return failures


def check_live_map(stroll, walk, options, streets, shot=None):
    """The failures of the live view's map: streets missing, over the walk or
    outside the map (when `streets`), overlapping labels."""
    server, url = serve(stroll, walk, options)
    driver = chromium()
    try:
        if url is None:
            return ["stroll serve did not print its http address"], {}
        return check_map(driver, url, streets, shot)
    finally:
        driver.quit()
        server.terminate()
        server.wait(timeout=10)


def main():
    stroll, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    failures = []
    if "--selftest" in sys.argv:
        still = os.path.join(out, "standing-still.csv")
        with open(still, "w") as f:
            f.write("time,latitude,longitude\n")
            for k in range(30):
                f.write(f"2024-05-01T08:40:{k:02d}Z,53.4071481,-2.9795275\n")
        got = check(stroll, still, None, deadline=10)
        expected = ["the walker moved to only", "the first row of the ranking never changed"]
        missing = [e for e in expected if not any(g.startswith(e) for g in got)]
        if missing:
            failures.append(f"selftest: a walker standing still gave {got}, not {missing}")
        else:
            print(f"selftest: a walker standing still fails as it must: {got}")
    extract = "Fixtures/osm/monaco-latest.osm.pbf"
    monaco = os.path.join(out, "monaco-walk.gpx")
    subprocess.run([stroll, "route", "Place du Casino", "Musée Océanographique", "--osm", extract, "-o", monaco], check=True, stdout=subprocess.DEVNULL)
    places = ["--places", extract, "--osm-filter", "amenity=cafe,restaurant"]
    if "--selftest" in sys.argv:
        got, _ = check_live_map(stroll, monaco, places, streets=True)
        if not any(g.startswith("no streets drawn") for g in got):
            failures.append(f"selftest: the Monaco walk served without --osm gave {got}, not ['no streets drawn']")
        else:
            print(f"selftest: the Monaco walk served without --osm fails as it must: {got}")
    failures += check(stroll, "traces/lime-street-to-campus.csv", os.path.join(out, "live.png"))
    got, m = check_live_map(stroll, monaco, places + ["--osm", extract], streets=True, shot=os.path.join(out, "live-monaco.png"))
    failures += [f"Monaco live view: {g}" for g in got]
    print(f"Monaco live view: {m.get('streets', 0)} street paths of {m.get('subpaths', 0)} lines under the walk, {len(m.get('labels', []))} labels shown")
    for f in failures:
        print("FAIL", f)
    print(f"live view: {len(failures)} failed; screenshots {os.path.join(out, 'live.png')}, {os.path.join(out, 'live-monaco.png')}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
