#!/usr/bin/env python3
"""Opens the HTML report of a replay in headless Chromium (Debian's chromium
and chromium-driver, through selenium), checks that it loads without console
errors, that moving the time slider changes the shown ranking and clock, and
that it lists the groups in the order `stroll replay` prints them; and saves
a screenshot. Then the report of a walk on the Monaco extract's streets
(`stroll replay --route A B --osm monaco-latest.osm.pbf`, the extract's cafes
and restaurants as places): its map must draw street paths under the walk
and inside the map. In both reports, as Chromium lays them out, no two shown
labels may overlap, no label may cover another place's pin, and no distance
of a ranking may wrap onto a second line (at the first fix and at the last);
the check prints what it counted ("labels 23, label-pin overlaps 0, distance
cells 48, wrapped 0").

    python3 Tests/IntegrationTests/browser/check_html.py STROLL OUT_DIR [--selftest]

With --selftest the check is first shown failing, in the same browser, on
wrong copies of the reports: one whose page throws an error as it loads
(it must report console errors), one whose every frame shows the first
frame's rankings at the first frame's time (it must report that the slider
changed neither the ranking nor the time), one whose groups come in the
other order (it must report the order), a Monaco report with its streets
taken out (it must report that no streets are drawn), one whose labels are
all put where they were before they were placed, up and right of their pins
(it must report overlapping labels), one whose labels are each moved onto
the next place's pin (it must report labels covering pins), and one without
the distances' nowrap style and with a narrow table (it must report wrapped
distances). The real reports must then pass.
"""
import json
import os
import re
import subprocess
import sys

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser import MAP_SCRIPT, check_map, chromium, console_errors, figures, table_figures  # noqa: E402


def check(driver, page, order, shot=None):
    """The failures of one report: console errors, a slider that changes
    nothing, groups not in `order` (the order `stroll replay` prints them),
    distance cells that wrap (at the first frame and at the last). Gives the
    failures, the (clock, ranking text) before and after moving the slider,
    and the distance cells counted and those wrapped."""
    failures = []
    driver.get("file://" + page)
    errors = console_errors(driver)
    if errors:
        failures.append(f"console errors: {errors}")
    shown = [h.text for h in driver.find_elements(By.CSS_SELECTOR, "#rankings h2")]
    if shown != order:
        failures.append(f"groups not in the terminal's order: {shown}, not {order}")
    cells, wrapped = table_figures(driver)
    slider = driver.find_element(By.ID, "time")
    before = driver.find_element(By.ID, "rankings").text
    clock_before = driver.find_element(By.ID, "clock").text
    slider.send_keys(Keys.END)
    after = driver.find_element(By.ID, "rankings").text
    clock_after = driver.find_element(By.ID, "clock").text
    more, more_wrapped = table_figures(driver)
    cells, wrapped = cells + more, wrapped + more_wrapped
    if wrapped:
        failures.append(f"distances wrap: {len(wrapped)} of {cells} distance cells on more than one line, first {wrapped[:3]}")
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
    return failures, (clock_before, before), (clock_after, after), (cells, len(wrapped))


def check_report(driver, page, order, streets, shot=None):
    """`check` and then the map's failures (`check_map`): the failures and the figures printed."""
    failures, _, _, (cells, wrapped) = check(driver, page, order)
    got, m = check_map(driver, "file://" + page, streets=streets, shot=shot)
    return failures + got, figures(m, cells, wrapped)


def wrong_pages(page, folder):
    """Wrong copies of the report: (path, the failures it must give)."""
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

    def reverse(groups):
        return dict(reversed(list(groups.items()))) if isinstance(groups, dict) else list(reversed(groups))
    turned = [dict(frame, groups=reverse(frame["groups"])) for frame in frames]
    reordered = os.path.join(folder, "wrong-group-order.html")
    with open(reordered, "w", encoding="utf-8") as f:
        f.write(html[:start] + json.dumps(turned) + html[end:])
    return [(throwing, ["console errors"]),
            (frozen, ["moving the slider did not change the ranking", "moving the slider did not change the time"]),
            (reordered, ["groups not in the terminal's order"])]


PIN = re.compile(r'<g class="pin"[^>]*>.*?</g>', re.S)
CENTRE = re.compile(r'<circle cx="([^"]*)" cy="([^"]*)"')
LABEL_AT = re.compile(r'<text class="label" x="[^"]*" y="[^"]*"')


def wrong_maps(page, folder):
    """Wrong copies of the Monaco report: (path, the failures it must give)."""
    html = open(page, encoding="utf-8").read()
    folder = os.path.abspath(folder)
    bare = os.path.join(folder, "wrong-no-streets.html")
    with open(bare, "w", encoding="utf-8") as f:
        f.write(re.sub(r'<g id="streets".*?</g>\n', "", html, flags=re.S))
    centres = [tuple(float(v) for v in CENTRE.search(g).groups()) for g in PIN.findall(html)]

    def moved(where):
        """The report with the label of the k-th pin put at where(k, its pin's centre)."""
        count = iter(range(len(centres)))

        def one(m):
            k = next(count)
            x, y = where(k, centres[k])
            return LABEL_AT.sub(f'<text class="label" x="{x:.1f}" y="{y:.1f}"', m.group(0))
        return PIN.sub(one, html)
    # Each label up and right of its pin, where every label went before they were placed.
    crowded = os.path.join(folder, "wrong-overlapping-labels.html")
    with open(crowded, "w", encoding="utf-8") as f:
        f.write(moved(lambda k, c: (c[0] + 8, c[1] - 6)))
    # Each label across the next place's pin: its text starts left of that pin's centre, its baseline below it.
    on_pins = os.path.join(folder, "wrong-labels-on-pins.html")
    with open(on_pins, "w", encoding="utf-8") as f:
        f.write(moved(lambda k, c: (centres[(k + 1) % len(centres)][0] - 6, centres[(k + 1) % len(centres)][1] + 4)))
    # The distances free to wrap, in a table too narrow for them.
    narrow = os.path.join(folder, "wrong-wrapped-distances.html")
    style = html.index("</style>")
    with open(narrow, "w", encoding="utf-8") as f:
        f.write(re.sub(r"white-space: nowrap;?", "", html[:style]) + "#panel { min-width: 0; width: 60px; flex: none; }\n" + html[style:])
    return [(bare, ["no streets drawn"]), (crowded, ["labels overlap"]), (on_pins, ["labels cover pins"]),
            (narrow, ["distances wrap"])]


def groups_printed(jsonl):
    """The groups in the order `stroll replay` prints their rankings: the order of their first ranking events."""
    order = []
    for line in jsonl.splitlines():
        event = json.loads(line)
        if event.get("type") == "ranking" and event["group"] not in order:
            order.append(event["group"])
    return order


def main():
    stroll, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    page = os.path.abspath(os.path.join(out, "run.html"))
    run = subprocess.run([stroll, "replay", "traces/pier-head-to-guild.gpx", "--html", page, "--select", "Leaf", "--format", "jsonl"],
                         check=True, stdout=subprocess.PIPE, text=True)
    order = groups_printed(run.stdout)
    monaco = os.path.abspath(os.path.join(out, "monaco.html"))
    extract = "Fixtures/osm/monaco-latest.osm.pbf"
    run = subprocess.run([stroll, "replay", "--route", "Place du Casino", "Musée Océanographique", "--osm", extract,
                          "--places", extract, "--osm-filter", "amenity=cafe,restaurant", "--html", monaco, "--format", "jsonl"],
                         check=True, stdout=subprocess.PIPE, text=True)
    monaco_order = groups_printed(run.stdout)
    driver = chromium()
    failures = []

    def expect(wrong, expected, got):
        missing = [e for e in expected if not any(g.startswith(e) for g in got)]
        if missing:
            failures.append(f"selftest: {os.path.basename(wrong)} gave {got}, not {missing}")
        else:
            print(f"selftest: {os.path.basename(wrong)} fails as it must: {got}")
    try:
        if "--selftest" in sys.argv:
            for wrong, expected in wrong_pages(page, out):
                got, _, _, _ = check(driver, wrong, order)
                expect(wrong, expected, got)
            for wrong, expected in wrong_maps(monaco, out):
                got, counted = check_report(driver, wrong, monaco_order, streets=True)
                expect(wrong, expected, got)
                print(f"selftest: {os.path.basename(wrong)}: {counted}")
        got, (clock_before, before), (clock_after, after), _ = check(driver, page, order, os.path.join(out, "run.png"))
        failures += got
        print(f"first ranking at {clock_before}: {before.splitlines()[:3]}")
        print(f"last ranking at {clock_after}: {after.splitlines()[:3]}")
        got, counted = check_report(driver, page, order, streets=False)
        failures += [f"Pier Head report: {g}" for g in got]
        print(f"Pier Head report: groups {order}; {counted}")
        got, counted = check_report(driver, monaco, monaco_order, streets=True, shot=os.path.join(out, "monaco.png"))
        failures += [f"Monaco report: {g}" for g in got]
        m = driver.execute_script(MAP_SCRIPT)
        print(f"Monaco report: {m['streets']} street paths of {m['subpaths']} lines under the walk; groups {monaco_order}; {counted}")
    finally:
        driver.quit()
    for f in failures:
        print("FAIL", f)
    print(f"browser: {len(failures)} failed; screenshots {os.path.join(out, 'run.png')}, {os.path.join(out, 'monaco.png')}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
