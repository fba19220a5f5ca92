"""Headless Chromium for the browser checks: Debian's chromium and
chromium-driver, driven by selenium, console messages kept."""
from selenium import webdriver
from selenium.webdriver.chrome.service import Service


def chromium():
    options = webdriver.ChromeOptions()
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,1000"):
        options.add_argument(flag)
    options.binary_location = "/usr/bin/chromium"
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def console_errors(driver):
    return [e for e in driver.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]


# What the map of a page draws, measured by the browser: the street paths
# (how many, their boxes, whether they come before the walk's line, that is
# under it), the boxes of the labels that are shown, each with the index of
# its own pin, and every pin's circle (centre and radius), all in the page's
# pixels as Chromium lays them out.
MAP_SCRIPT = """
const svg = document.getElementById("map");
const view = svg.viewBox.baseVal;
const streets = [...svg.querySelectorAll("#streets path")];
const trace = svg.querySelector(".trace");
const under = streets.length > 0 && trace !== null &&
  streets.every(p => (p.compareDocumentPosition(trace) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0);
const outside = streets.filter(p => {
  const b = p.getBBox();
  return b.x < view.x - 0.5 || b.y < view.y - 0.5 || b.x + b.width > view.x + view.width + 0.5 || b.y + b.height > view.y + view.height + 0.5;
}).map(p => p.getAttribute("class"));
const subpaths = streets.reduce((n, p) => n + (p.getAttribute("d").match(/M/g) || []).length, 0);
const groups = [...svg.querySelectorAll(".pin")];
const pins = groups.map(g => {
  const c = g.querySelector("circle");
  if (!c) return null;
  const b = c.getBoundingClientRect();
  return [g.getAttribute("data-id"), (b.left + b.right) / 2, (b.top + b.bottom) / 2, b.width / 2];
});
const labels = [...svg.querySelectorAll("text")].filter(t => t.closest(".pin") && t.getAttribute("visibility") !== "hidden"
  && getComputedStyle(t).display !== "none").map(t => {
  const b = t.getBoundingClientRect();
  return [t.textContent, b.left, b.top, b.right, b.bottom, groups.indexOf(t.closest(".pin"))];
});
return {streets: streets.length, subpaths: subpaths, under: under, outside: outside, labels: labels, pins: pins};
"""


def label_pin_overlaps(m):
    """The (label, pin id) pairs of `m` (what MAP_SCRIPT measured) where a
    shown label's box covers part of another place's pin: the circle reaches
    into the box by more than a tenth of a pixel (against rounding)."""
    found = []
    for text, left, top, right, bottom, own in m["labels"]:
        for k, pin in enumerate(m["pins"]):
            if pin is None or k == own:
                continue
            pid, cx, cy, r = pin
            nx, ny = min(max(cx, left), right), min(max(cy, top), bottom)
            if (cx - nx) ** 2 + (cy - ny) ** 2 < (r - 0.1) ** 2:
                found.append((text, pid))
    return found


def map_failures(driver, streets):
    """The failures of the page's map: with `streets`, no street paths, streets
    drawn over the walk or outside the map; always, two shown labels whose
    boxes overlap (by more than a tenth of a pixel, against rounding), and a
    shown label that covers another place's pin (`label_pin_overlaps`)."""
    m = driver.execute_script(MAP_SCRIPT)
    failures = []
    if streets:
        if m["streets"] == 0 or m["subpaths"] < 10:
            failures.append(f"no streets drawn: {m['streets']} street paths, {m['subpaths']} lines")
        elif not m["under"]:
            failures.append("streets are not drawn under the walk")
        if m["outside"]:
            failures.append(f"streets drawn outside the map: {m['outside']}")
    labels = m["labels"]
    overlaps = []
    for i, a in enumerate(labels):
        for b in labels[i + 1:]:
            if a[1] < b[3] - 0.1 and b[1] < a[3] - 0.1 and a[2] < b[4] - 0.1 and b[2] < a[4] - 0.1:
                overlaps.append((a[0], b[0]))
    if overlaps:
        failures.append(f"labels overlap: {len(overlaps)} pairs, first {overlaps[:3]}")
    covering = label_pin_overlaps(m)
    m["pin_overlaps"] = len(covering)
    if covering:
        failures.append(f"labels cover pins: {len(covering)} label-pin overlaps, first {covering[:3]}")
    return failures, m


# The distance cells of the rankings shown (#rankings td.d), each measured as
# Chromium renders it: the lines its text takes (the distinct tops of the
# text's line boxes, from a range over the cell's contents), the height of
# that text, and the height of one line of the cell's font.
TABLE_SCRIPT = """
return [...document.querySelectorAll("#rankings td.d")].map(td => {
  const range = document.createRange();
  range.selectNodeContents(td);
  const rects = [...range.getClientRects()].filter(r => r.width > 0 || r.height > 0);
  const tops = new Set(rects.map(r => Math.round(r.top)));
  const box = range.getBoundingClientRect();
  const style = getComputedStyle(td);
  const line = style.lineHeight === "normal" ? parseFloat(style.fontSize) * 1.2 : parseFloat(style.lineHeight);
  return [td.textContent, tops.size, box.height, line];
});
"""


def table_figures(driver):
    """The distance cells shown and those of them wrapped: text on more than
    one line, or taller than one and a half lines."""
    cells = driver.execute_script(TABLE_SCRIPT)
    wrapped = [c[0] for c in cells if c[1] > 1 or c[2] > 1.5 * c[3]]
    return len(cells), wrapped


def figures(m, cells, wrapped):
    """The counts a check prints: labels, label-pin overlaps, distance cells, wrapped ones."""
    return (f"labels {len(m.get('labels', []))}, label-pin overlaps {m.get('pin_overlaps', 0)}, "
            f"distance cells {cells}, wrapped {wrapped}")


def check_map(driver, url, streets, shot=None):
    """Opens `url` and gives the failures of its map (`map_failures`) and
    its console errors, and what was measured; saves a screenshot to `shot`."""
    driver.get(url)
    failures, m = map_failures(driver, streets)
    errors = console_errors(driver)
    if errors:
        failures.append(f"console errors: {errors}")
    if shot:
        driver.save_screenshot(shot)
    return failures, m
