"""The plan viewer's page in a real headless browser (the system's Chromium, driven by selenium): it loads with
no console error, the slider walks through every step, and the board after the last step is the replay's."""

from __future__ import annotations

import shutil

import pytest

from fastspe.domains.sliding.layout import Layout
from fastspe.domains.sliding.viewer import plan_trace, replay_moves
from fastspe.report.viewer_html import write_trace_page

CHROMIUM = next(filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))), None)
DRIVER = shutil.which("chromedriver")
pytestmark = [
    pytest.mark.slow,  # (a browser: the slow tier)
    pytest.mark.skipif(
        CHROMIUM is None or DRIVER is None,
        reason="no chromium/chromedriver binary (apt-get install chromium chromium-driver)",
    ),
]
EVIL = 'cond</script><img src=x onerror="window.hacked=1">'


def a_trace():
    """A 4x4 board with a block, a plan that goes back and forth (revisits) and ends off the board."""
    layout = Layout(4, 4, (5,))
    goal = [int(v) for v in layout.goal]
    steps, illegal = replay_moves(layout, goal, "UUUL")  # the goal scrambled by a legal path
    assert illegal is None
    initial = list(steps[-1].board)
    bank_row = {"rows": 4, "cols": 4, "blocks": [5], "initial": initial, "depth": 4}
    row = {
        "board_id": "b<1>&",
        "condition": EVIL,
        "trial": 0,
        "moves": "RLRDDDD",
    }  # back and forth (revisits), then down and off the board
    return plan_trace(bank_row, row)


@pytest.fixture(scope="module")
def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    yield driver
    driver.quit()


def board_on_page(driver) -> list[int]:
    return [int(c.get_attribute("data-v")) for c in driver.find_elements("css selector", "#board .cell")]


def test_the_page_loads_and_the_slider_walks_every_step(browser, tmp_path):
    from selenium.webdriver.common.keys import Keys

    trace = a_trace()
    assert trace.illegal is not None and trace.revisits  # the page has every marker to show
    page = tmp_path / "trace.html"
    write_trace_page(trace, page)
    browser.get(page.as_uri())
    errors = [e for e in browser.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]
    assert errors == []
    assert browser.execute_script("return window.hacked") is None
    assert EVIL in browser.find_element("tag name", "h1").text  # escaped markup reads back as the text it was
    slider = browser.find_element("id", "step")
    assert int(slider.get_attribute("max")) == len(trace.steps) - 1
    assert board_on_page(browser) == list(trace.steps[0].board)
    for step in trace.steps[1:]:
        slider.send_keys(Keys.ARROW_RIGHT)
        assert browser.find_element("tag name", "body").get_attribute("data-step") == str(step.number)
        assert board_on_page(browser) == list(step.board)
        current = browser.find_elements("css selector", "#moves li.cur")
        assert [li.text for li in current] == [step.move]
    assert board_on_page(browser) == list(trace.final.board)  # the board after the last step: the replay's
    assert "next: move" in browser.find_element("id", "step-label").text  # the illegal move that follows
    browser.find_element("id", "prev").click()
    assert board_on_page(browser) == list(trace.steps[-2].board)
    browser.find_element("id", "next").click()
    browser.find_element("tag name", "body").send_keys(Keys.HOME)
    assert board_on_page(browser) == list(trace.steps[0].board)
    assert browser.find_elements("css selector", "#moves li.bad")[0].text == trace.illegal.move
    browser.find_elements("css selector", "#moves li")[1].click()  # a move in the list is a step to go to
    assert board_on_page(browser) == list(trace.steps[2].board)
    assert [e for e in browser.get_log("browser") if e["level"] in ("SEVERE", "ERROR")] == []


_XSB = {"out": " ", "wall": "#", "box on": "*", "box": "$", "player goal": "+", "player": "@", "goal": ".", "": " "}


def level_on_page(driver, cols: int) -> str:
    """The picture on the page read back as XSB: each cell's kind from its classes."""
    chars = []
    for c in driver.find_elements("css selector", "#board .cell"):
        kinds = set(c.get_attribute("class").split()) - {"cell", "moved", "frozen"}
        key = (
            "player goal"
            if {"player", "goal"} <= kinds
            else "player"
            if "player" in kinds
            else "box on"
            if "on" in kinds
            else "box"
            if "box" in kinds
            else " ".join(sorted(kinds))
        )
        chars.append(_XSB[key])
    return "\n".join("".join(chars[i : i + cols]).rstrip() for i in range(0, len(chars), cols))


def test_the_sokoban_page_draws_the_level_of_every_step(browser, tmp_path):
    from selenium.webdriver.common.keys import Keys

    from fastspe.domains.sokoban.viewer import sokoban_trace

    level = "#######\n#@$ . #\n# $ . #\n#######"
    row = {"board_id": "two", "condition": EVIL, "trial": 0, "moves": "DURRRR"}  # a revisit, pushes, a blocked push
    trace = sokoban_trace({"level": level, "depth": 7, "pushes": 4}, row)
    assert trace.illegal is not None and trace.illegal.kind == "box_blocked" and trace.revisits
    assert trace.first_dead_move == 4  # the third push leaves the box in the corner
    page = tmp_path / "sokoban.html"
    write_trace_page(trace, page)
    browser.get(page.as_uri())
    assert [e for e in browser.get_log("browser") if e["level"] in ("SEVERE", "ERROR")] == []
    assert browser.execute_script("return window.hacked") is None
    board = browser.find_element("id", "board")
    assert level_on_page(browser, 7) == level
    slider = browser.find_element("id", "step")
    for step in trace.steps[1:]:
        slider.send_keys(Keys.ARROW_RIGHT)
        assert level_on_page(browser, 7) == trace.text(step)
        moved = browser.find_elements("css selector", "#board .cell.moved")
        assert len(moved) == (step.pushed >= 0)  # the box just pushed, ringed
        frozen = browser.find_elements("css selector", "#board .cell.frozen")
        assert len(frozen) == (step.number >= 5) and ("dead" in board.get_attribute("class")) == (step.number >= 5)
    assert "next: move 6 (R): pushes a box" in browser.find_element("id", "step-label").text
    assert [li.text for li in browser.find_elements("css selector", "#moves li.dead")] == ["R"]
    browser.find_element("tag name", "body").send_keys(Keys.HOME)
    assert level_on_page(browser, 7) == level
    assert [e for e in browser.get_log("browser") if e["level"] in ("SEVERE", "ERROR")] == []
