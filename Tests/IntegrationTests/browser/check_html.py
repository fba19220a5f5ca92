#!/usr/bin/env python3
"""Opens the HTML report of a replay in headless Chromium (Debian's chromium
and chromium-driver, through selenium), checks that it loads without console
errors and that moving the time slider changes the shown ranking and clock,
and saves a screenshot. Then the report of a walk on the Monaco extract's
streets (`stroll replay --route A B --osm monaco-latest.osm.pbf`, the
extract's cafes and restaurants as places): its map must draw street paths
under the walk and inside the map, and in both reports no two shown labels
may overlap (their boxes as Chromium lays them out).

    python3 Tests/IntegrationTests/browser/check_html.py STROLL OUT_DIR [--selftest]

With --selftest the check is first shown failing, in the same browser, on
wrong copies of the reports: one whose page throws an error as it loads
(it must report console errors), one whose every frame shows the first
frame's rankings at the first frame's time (it must report that the slider
changed neither the ranking nor the time), a Monaco report with its streets
taken out (it must report that no streets are drawn), and one whose labels
are all put where they were before they were placed, up and right of their
pins (it must report overlapping labels). The real reports must then pass.
"""
import json
import os
import re
import subprocess
import sys

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser import check_map, chromium, console_errors  # noqa: E402


def check(driver, page, shot=None):
    """The failures of one report: console errors, a slider that changes nothing."""
    failures = []
    driver.get("file://" + page)
    errors = console_errors(driver)
    if errors:
        failures.append(f"console errors: {errors}")
    slider = driver.find_element(By.ID, "time")
    before = driver.find_element(By.ID, "rankings").text
    clock_before = driver.find_element(By.ID, "clock").text
    slider.send_keys(Keys.END)
    after = driver.find_element(By.ID, "rankings").text
    clock_after = driver.find_element(By.ID, "clock").text
    if not before.strip():
        failures.append("no ranking shown")
    if before == after:
        failures.append("moving the slider did not change the ranking")
    if clock_before == clock_after:
        failures.append("moving the slider did not change the time")
    if shot:
        driver.save_screenshot(shot)
    errors = console_errors(driver)
    if errors:
        failures.append(f"console errors after moving the slider: {errors}")
    return failures, (clock_before, before), (clock_after, after)


def wrong_pages(page, folder):
    """Two wrong copies of the report: (path, the failures it must give)."""
    html = open(page, encoding="utf-8").read()
    folder = os.path.abspath(folder)   # opened as file:// URLs
    throwing = os.path.join(folder, "wrong-throws.html")
    at = html.index("<script>")
    with open(throwing, "w", encoding="utf-8") as f:
        f.write(html[:at] + '<script>throw new Error("a deliberate error");</script>' + html[at:])
    start = html.index("const frames = ") + len("const frames = ")
    frames, end = json.JSONDecoder().raw_decode(html, start)
    still = [dict(frame, t=frames[0]["t"], x=frames[0]["x"], y=frames[0]["y"], groups=frames[0]["groups"]) for frame in frames]
    frozen = os.path.join(folder, "wrong-frozen.html")
    with open(frozen, "w", encoding="utf-8") as f:
        f.write(html[:start] + json.dumps(still) + html[end:])
    return [(throwing, ["console errors"]),
            (frozen, ["moving the slider did not change the ranking", "moving the slider did not change the time"])]


def wrong_maps(page, folder):
    """Two wrong copies of the Monaco report: (path, the failures it must give)."""
    html = open(page, encoding="utf-8").read()
    folder = os.path.abspath(folder)
    bare = os.path.join(folder, "wrong-no-streets.html")
    with open(bare, "w", encoding="utf-8") as f:
        f.write(re.sub(r'<g id="streets".*?</g>\n', "", html, flags=re.S))
    # Each label up and right of its pin, where every label went before they were placed.
    def unplaced(m):
        cx, cy = float(m.group(2)), float(m.group(3))
        return m.group(1) + re.sub(r'<text class="label" x="[^"]*" y="[^"]*"', f'<text class="label" x="{cx + 8:.1f}" y="{cy - 6:.1f}"', m.group(4))
    crowded = os.path.join(folder, "wrong-overlapping-labels.html")
    with open(crowded, "w", encoding="utf-8") as f:
        f.write(re.sub(r'(<g class="pin"[^>]*><circle cx="([^"]*)" cy="([^"]*)"[^>]*>)(<text[^>]*>)', unplaced, html))
    return [(bare, ["no streets drawn"]), (crowded, ["labels overlap"])]


def main():
    stroll, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    page = os.path.abspath(os.path.join(out, "run.html"))
    subprocess.run([stroll, "replay", "traces/pier-head-to-guild.gpx", "--html", page, "--select", "Leaf", "--format", "jsonl"],
                   check=True, stdout=subprocess.DEVNULL)
    monaco = os.path.abspath(os.path.join(out, "monaco.html"))
    extract = "Fixtures/osm/monaco-latest.osm.pbf"
    subprocess.run([stroll, "replay", "--route", "Place du Casino", "Musée Océanographique", "--osm", extract,
                    "--places", extract, "--osm-filter", "amenity=cafe,restaurant", "--html", monaco, "--format", "jsonl"],
                   check=True, stdout=subprocess.DEVNULL)
    driver = chromium()
    failures = []
    try:
        if "--selftest" in sys.argv:
            for wrong, expected in wrong_pages(page, out):
                got, _, _ = check(driver, wrong)
                missing = [e for e in expected if not any(g.startswith(e) for g in got)]
                if missing:
                    failures.append(f"selftest: {os.path.basename(wrong)} gave {got}, not {missing}")
                else:
                    print(f"selftest: {os.path.basename(wrong)} fails as it must: {got}")
            for wrong, expected in wrong_maps(monaco, out):
                got, _ = check_map(driver, "file://" + wrong, streets=True)
                missing = [e for e in expected if not any(g.startswith(e) for g in got)]
                if missing:
                    failures.append(f"selftest: {os.path.basename(wrong)} gave {got}, not {missing}")
                else:
                    print(f"selftest: {os.path.basename(wrong)} fails as it must: {got}")
        got, (clock_before, before), (clock_after, after) = check(driver, page, os.path.join(out, "run.png"))
        failures += got
        print(f"first ranking at {clock_before}: {before.splitlines()[:3]}")
        print(f"last ranking at {clock_after}: {after.splitlines()[:3]}")
        got, m = check_map(driver, "file://" + page, streets=False)
        failures += got
        print(f"Pier Head report: {len(m['labels'])} labels shown")
        got, _, _ = check(driver, monaco)
        failures += [f"Monaco report: {g}" for g in got]
        got, m = check_map(driver, "file://" + monaco, streets=True, shot=os.path.join(out, "monaco.png"))
        failures += [f"Monaco report: {g}" for g in got]
        print(f"Monaco report: {m['streets']} street paths of {m['subpaths']} lines under the walk, {len(m['labels'])} labels shown")
    finally:
        driver.quit()
    for f in failures:
        print("FAIL", f)
    print(f"browser: {len(failures)} failed; screenshots {os.path.join(out, 'run.png')}, {os.path.join(out, 'monaco.png')}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
