#!/usr/bin/python3
"""The web app's pages in Debian's Chromium (headless, through chromium-driver): what a
player and a kiosk screen see, at a desktop, a phone and the Pi touch display's sizes.
Fails on any console error (a CSP violation is one), a horizontal scroll on a 375 px phone,
a kiosk that scrolls at 800×480 or 1920×1080, or a page missing what it is for. Saves the
README's screenshots.   usage: pages.py BASE_URL SCREENSHOT_DIR"""
import sys
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

base, shots = sys.argv[1], sys.argv[2]
options = Options()
options.binary_location = "/usr/bin/chromium"
for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars"):
    options.add_argument(arg)
options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
problems = []


def check(ok, message):
    if not ok:
        problems.append(message)
    return ok


def viewport(width, height, mobile=False):
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile})


def visit(path):
    driver.get(base + path)
    for entry in driver.get_log("browser"):
        check(entry["level"] != "SEVERE", f"{path}: console error: {entry['message']}")


def size():
    return driver.execute_script(
        "const e = document.documentElement; return [e.scrollWidth, e.scrollHeight, window.innerWidth, window.innerHeight]")


def screenshot(name, full_page=True, width=None):
    if full_page:
        w, h, vw, _ = size()
        viewport(width or vw, h)
    driver.save_screenshot(f"{shots}/{name}.png")
    print(f"saved {shots}/{name}.png")


try:
    # The player's home, desktop.
    viewport(1024, 768)
    visit("/")
    check(driver.find_element(By.TAG_NAME, "h1").text == "TimeQuest", "/: no TimeQuest heading")
    quests = [li.text for li in driver.find_elements(By.CSS_SELECTOR, ".quests li")]
    check(any("Morning Quest" in q for q in quests), f"/: today's quests are {quests}")
    check(driver.find_element(By.TAG_NAME, "progress").get_attribute("value") is not None, "/: no level progress")
    screenshot("home", width=1024)

    # Stats: a dot per played day of the fixture (12, all in the last 30 days), patterns, weeks.
    viewport(1024, 768)
    visit("/stats")
    chart = driver.find_elements(By.CSS_SELECTOR, "svg.chart")
    if check(len(chart) == 1, "/stats: no chart"):
        dots = chart[0].find_elements(By.CSS_SELECTOR, "circle.day")
        check(len(dots) == 12, f"/stats: {len(dots)} days in the chart, expected 12")
        check(chart[0].size["width"] > 500, f"/stats: the chart is {chart[0].size['width']} px wide")
        check(len(chart[0].find_elements(By.CSS_SELECTOR, "polyline.trend")) == 1, "/stats: no trend line")
    patterns = driver.find_elements(By.CSS_SELECTOR, ".patterns li")
    check(len(patterns) >= 3, f"/stats: {len(patterns)} pattern lines")
    check("Week " in driver.find_element(By.CSS_SELECTOR, ".reflection").text, "/stats: no weekly reflection")
    screenshot("stats", width=1024)

    # A 375 px phone: nothing wider than the screen on any page.
    for path in ("/", "/stats", "/kiosk"):
        viewport(375, 812, mobile=True)
        visit(path)
        w, _, vw, _ = size()
        check(w <= vw, f"{path}: {w} px wide on a {vw} px phone (horizontal scroll)")
    viewport(375, 812, mobile=True)
    visit("/stats")
    screenshot("stats-phone", width=375)

    # The kiosk: no scrolling on the Pi's 800×480 touch display nor at 1920×1080.
    for w, h in ((800, 480), (1920, 1080)):
        viewport(w, h)
        visit("/kiosk")
        sw, sh, vw, vh = size()
        check(sw <= vw and sh <= vh, f"/kiosk at {w}×{h}: the page is {sw}×{sh} (scrolls)")
        check("Box offline" in driver.find_element(By.TAG_NAME, "main").text, f"/kiosk at {w}×{h}: no offline notice")
    viewport(800, 480)
    visit("/kiosk")
    screenshot("kiosk-offline", full_page=False)
finally:
    driver.quit()

for p in problems:
    print("problem:", p)
print(f"browser: {len(problems)} problem(s)")
sys.exit(1 if problems else 0)
