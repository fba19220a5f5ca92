#!/usr/bin/env python3
"""Opens the HTML report of a replay in headless Chromium (Debian's chromium
and chromium-driver, through selenium), checks that it loads without console
errors and that moving the time slider changes the shown ranking, and saves a
screenshot.

    python3 Tests/IntegrationTests/browser/check_html.py STROLL OUT_DIR
"""
import os
import subprocess
import sys

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser import chromium, console_errors  # noqa: E402

stroll, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
page = os.path.abspath(os.path.join(out, "run.html"))
subprocess.run([stroll, "replay", "traces/pier-head-to-guild.gpx", "--html", page, "--select", "Leaf", "--format", "jsonl"],
               check=True, stdout=subprocess.DEVNULL)

driver = chromium()
failures = []
try:
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
    if before == after:
        failures.append("moving the slider did not change the ranking")
    if clock_before == clock_after:
        failures.append("moving the slider did not change the time")
    driver.save_screenshot(os.path.join(out, "run.png"))
    errors = console_errors(driver)
    if errors:
        failures.append(f"console errors after moving the slider: {errors}")
    print(f"first ranking at {clock_before}: {before.splitlines()[:3]}")
    print(f"last ranking at {clock_after}: {after.splitlines()[:3]}")
finally:
    driver.quit()
for f in failures:
    print("FAIL", f)
print(f"browser: {2 - len(failures) if len(failures) < 2 else 0} passed, {len(failures)} failed; screenshot {os.path.join(out, 'run.png')}")
sys.exit(1 if failures else 0)
