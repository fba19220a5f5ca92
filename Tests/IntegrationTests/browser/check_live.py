#!/usr/bin/env python3
"""Opens `stroll serve --http`'s live view in headless Chromium (Debian's
chromium and chromium-driver, through selenium) while a walk replays, checks
that the walker marker moves and the first row of a ranking changes as events
arrive, that Pause holds the walker and Resume lets it go on, that no label
covers another place's pin and no distance wraps, and saves a screenshot.

    python3 Tests/IntegrationTests/browser/check_live.py STROLL OUT_DIR [--selftest]

Then the live view of a walk on the Monaco extract's streets (`stroll route`
writes it, `stroll serve --osm monaco-latest.osm.pbf` serves it with the
extract's cafes and restaurants as places): its map must draw street paths
under the walk and inside the map, no two shown labels may overlap, no label
may cover another place's pin, the groups must come in the order `stroll
replay` prints them, and no distance may wrap onto a second line; the check
prints what it counted ("labels 23, label-pin overlaps 0, distance cells 20,
wrapped 0").

With --selftest the check is first shown failing on a live view whose walker
stands still (the same server on a walk of thirty fixes at one spot): it must
report that the walker did not move and that the first row never changed;
on the Monaco walk served without --osm: it must report that no streets are
drawn; and on the Monaco live view made wrong in the browser (its labels
moved onto the next place's pins, the distances' nowrap style taken off in a
narrow panel, its first group moved last): it must report labels covering
pins, wrapped distances and the groups' order.
"""
import json
import os
import re
import subprocess
import sys
import time

from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser import chromium, console_errors, figures, map_failures, table_figures  # noqa: E402

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
        got, m = map_failures(driver, streets=False)
        failures += got
        cells, wrapped = table_figures(driver)
        if wrapped:
            failures.append(f"distances wrap: {len(wrapped)} of {cells} distance cells on more than one line, first {wrapped[:3]}")
        errors = console_errors(driver)
        if errors:
            failures.append(f"console errors: {errors}")
        print(f"walker at {len(positions)} places; first rows seen: {sorted(r for r in rows if r)[:4]}; {figures(m, cells, len(wrapped))}")
    finally:
        driver.quit()
        server.terminate()
        server.wait(timeout=10)
    return failures


# A live view made wrong in the browser, for the selftest: each shown label
# moved across the next place's pin, the distances' nowrap style taken off
# and the panel made too narrow for them, and the first group's heading and
# table moved after the others.
SPOIL_SCRIPT = """
const pins = [...document.querySelectorAll("#map .pin circle")];
document.querySelectorAll("#map .pin").forEach((g, k) => {
  const t = g.querySelector("text.label");
  const next = pins[(k + 1) % pins.length];
  if (!t || !next) return;
  t.setAttribute("x", Number(next.getAttribute("cx")) - 6);
  t.setAttribute("y", Number(next.getAttribute("cy")) + 4);
});
for (const sheet of document.styleSheets) {
  for (const rule of sheet.cssRules) {
    if (rule.style && rule.style.whiteSpace === "nowrap") rule.style.removeProperty("white-space");
  }
}
const panel = document.getElementById("panel");
panel.style.minWidth = "0";
panel.style.width = "60px";
panel.style.flex = "none";
const rankings = document.getElementById("rankings");
const first = [...rankings.children].slice(0, 2);
rankings.append(...first);
"""


def check_live_map(stroll, walk, options, streets, order, shot=None, spoil=False):
    """The failures of the live view's map and rankings: streets missing, over
    the walk or outside the map (when `streets`), overlapping labels, labels
    covering pins, groups not in `order`, distances that wrap; and the figures
    printed. With `spoil` the page is first made wrong (SPOIL_SCRIPT)."""
    server, url = serve(stroll, walk, options)
    driver = chromium()
    try:
        if url is None:
            return ["stroll serve did not print its http address"], {}
        driver.get(url)
        limit = time.time() + 20
        while time.time() < limit and len(driver.find_elements(By.CSS_SELECTOR, "#rankings table")) < len(order):
            time.sleep(0.1)
        time.sleep(0.5)
        if spoil:
            driver.execute_script(SPOIL_SCRIPT)
        failures, m = map_failures(driver, streets)
        shown = [h.text for h in driver.find_elements(By.CSS_SELECTOR, "#rankings h2")]
        if shown != order:
            failures.append(f"groups not in the terminal's order: {shown}, not {order}")
        cells, wrapped = table_figures(driver)
        if cells == 0:
            failures.append("no distances shown")
        if wrapped:
            failures.append(f"distances wrap: {len(wrapped)} of {cells} distance cells on more than one line, first {wrapped[:3]}")
        errors = console_errors(driver)
        if errors:
            failures.append(f"console errors: {errors}")
        if shot:
            driver.save_screenshot(shot)
        m["figures"] = figures(m, cells, len(wrapped))
        return failures, m
    finally:
        driver.quit()
        server.terminate()
        server.wait(timeout=10)


def groups_printed(stroll, walk, options):
    """The groups in the order `stroll replay` prints their rankings for `walk`."""
    run = subprocess.run([stroll, "replay", walk, "--format", "jsonl"] + options, check=True, stdout=subprocess.PIPE, text=True)
    order = []
    for line in run.stdout.splitlines():
        event = json.loads(line)
        if event.get("type") == "ranking" and event["group"] not in order:
            order.append(event["group"])
    return order


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
    order = groups_printed(stroll, monaco, places)
    if "--selftest" in sys.argv:
        got, m = check_live_map(stroll, monaco, places, streets=True, order=order)
        if not any(g.startswith("no streets drawn") for g in got):
            failures.append(f"selftest: the Monaco walk served without --osm gave {got}, not ['no streets drawn']")
        else:
            print(f"selftest: the Monaco walk served without --osm fails as it must: {got}")
        got, m = check_live_map(stroll, monaco, places + ["--osm", extract], streets=True, order=order, spoil=True)
        expected = ["labels cover pins", "groups not in the terminal's order", "distances wrap"]
        missing = [e for e in expected if not any(g.startswith(e) for g in got)]
        if missing:
            failures.append(f"selftest: the Monaco live view made wrong gave {got}, not {missing}")
        else:
            print(f"selftest: the Monaco live view made wrong fails as it must: {got}")
            print(f"selftest: the Monaco live view made wrong: {m['figures']}")
    failures += check(stroll, "traces/lime-street-to-campus.csv", os.path.join(out, "live.png"))
    got, m = check_live_map(stroll, monaco, places + ["--osm", extract], streets=True, order=order, shot=os.path.join(out, "live-monaco.png"))
    failures += [f"Monaco live view: {g}" for g in got]
    print(f"Monaco live view: {m.get('streets', 0)} street paths of {m.get('subpaths', 0)} lines under the walk; groups {order}; {m.get('figures', '')}")
    for f in failures:
        print("FAIL", f)
    print(f"live view: {len(failures)} failed; screenshots {os.path.join(out, 'live.png')}, {os.path.join(out, 'live-monaco.png')}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
