"""Headless Chromium for the browser checks: Debian's chromium and
chromium-driver, driven by selenium, console messages kept."""
from selenium import webdriver
from selenium.webdriver.chrome.service import Service


def chromium():
    options = webdriver.ChromeOptions()
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,900"):
        options.add_argument(flag)
    options.binary_location = "/usr/bin/chromium"
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def console_errors(driver):
    return [e for e in driver.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]


# What the map of a page draws, measured by the browser: the street paths
# (how many, their boxes, whether they come before the walk's line, that is
# under it) and the boxes of the labels that are shown.
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
const labels = [...svg.querySelectorAll("text")].filter(t => t.closest(".pin") && t.getAttribute("visibility") !== "hidden"
  && getComputedStyle(t).display !== "none").map(t => {
  const b = t.getBoundingClientRect();
  return [t.textContent, b.left, b.top, b.right, b.bottom];
});
return {streets: streets.length, subpaths: subpaths, under: under, outside: outside, labels: labels};
"""


def map_failures(driver, streets):
    """The failures of the page's map: with `streets`, no street paths, streets
    drawn over the walk or outside the map; always, two shown labels whose
    boxes overlap (by more than a tenth of a pixel, against rounding)."""
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
    return failures, m


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
