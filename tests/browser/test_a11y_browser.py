"""The window at any width, from the keyboard alone, and under axe-core.

One app serves every test of this module (starting it is the slow part): report.pdf is
indexed, and one chat holds an answer built to be too wide, with a long table, a long
code line and a long word. axe-core comes from npm (tests/browser/package.json; `.ci/run`
installs it with `npm ci`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.harness import ROOT, count_is, fresh_shots, running_app, skip_without_chromium
from tests.fakes.ollama_server import FakeOllamaServer
from tests.pdfs import make_pdf
from tests.running import eventually
from ui.frame.shortcuts import SHORTCUTS

AXE = ROOT / "tests" / "browser" / "node_modules" / "axe-core" / "axe.min.js"

pytestmark = [
    skip_without_chromium,
    pytest.mark.skipif(not AXE.exists(), reason="needs axe-core: npm ci --prefix tests/browser"),
]

REPORT_PAGES = [
    "Introduction. This report covers the company's third quarter.",
    "Revenue. Revenue in the third quarter rose to 12 million euros, up 8 percent.",
]
LONG_NAME = "Quarterly board minutes of the northern region, final revised version.pdf"

WIDE_ANSWER = (
    "Revenue rose to 12 million euros [1].\n\n"
    + "| "
    + " | ".join(f"Column {i}" for i in range(14))
    + " |\n|"
    + "---|" * 14
    + "\n| "
    + " | ".join(f"value {i * 1000}" for i in range(14))
    + " |\n\n"
    + "```python\nrevenue = compute("
    + ", ".join(f"quarter_{i}=figures[{i}]" for i in range(20))
    + ")\n```\n\n"
    + "A long word: "
    + "Donaudampfschifffahrtsgesellschaftskapitänswitwe" * 3
    + ". The board expects steady growth next year [2]."
)


def reply(body: dict[str, Any]) -> str:
    """The fake model's reply to one call, chosen by the JSON schema the step asks for."""
    properties = (body.get("format") or {}).get("properties", {})
    last = next(m["content"] for m in reversed(body["messages"]) if m["role"] == "user")
    if "suggestions" in properties:
        return json.dumps({"suggestions": ["What does the board expect?"]})
    if "route" in properties:
        return json.dumps({"route": "documents"})
    if "query" in properties:
        return json.dumps({"query": last.rsplit("Last message:", 1)[-1].strip()})
    return WIDE_ANSWER


WIDTHS = (360, 420, 768, 1400)

# Everything inside the chat column that sticks out of it; what lies inside a box that
# scrolls or clips (a table, a code block) is that box's business, and the box is checked.
OVERFLOW_JS = """() => {
  const column = document.querySelector('.docent-messages');
  const box = column.getBoundingClientRect();
  const inScroller = (el) => {
    for (let p = el.parentElement; p && p !== column; p = p.parentElement) {
      if (['auto', 'scroll', 'hidden'].includes(getComputedStyle(p).overflowX)) return true;
    }
    return false;
  };
  const out = [];
  for (const el of column.querySelectorAll('*')) {
    const r = el.getBoundingClientRect();
    if (!r.width || inScroller(el)) continue;
    if (r.right > box.right + 1 || r.left < box.left - 1) {
      out.push(`${el.tagName.toLowerCase()}.${[...el.classList].join('.')} ` +
               `${Math.round(r.left)}..${Math.round(r.right)}`);
    }
  }
  const doc = document.documentElement;
  return {column: [Math.round(box.left), Math.round(box.right)], width: window.innerWidth,
          page: [doc.scrollWidth, doc.clientWidth], out: out.slice(0, 12)};
}"""

AXE_JS = """async () => {
  const result = await axe.run(document, {resultTypes: ['violations']});
  return result.violations.map((v) => ({id: v.id, impact: v.impact, nodes: v.nodes.length,
    where: v.nodes.slice(0, 3).map((n) => n.target.join(' ') + ' ' + n.failureSummary)}));
}"""


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, FakeOllamaServer]]:
    """The app with report.pdf and a long-named PDF indexed; its login link and fake Ollama."""
    data = tmp_path_factory.mktemp("a11y") / "data"
    make_pdf(data / "documents" / "report.pdf", REPORT_PAGES)
    make_pdf(data / "documents" / "board" / LONG_NAME, ["Minutes. The board met twice."])
    with FakeOllamaServer() as ollama, running_app(data, ollama, documents=2) as link:
        ollama.responder = reply
        yield link, ollama


@pytest.fixture(scope="module")
def shots() -> Path:
    return fresh_shots("a11y")


LOGINS: dict[str, Any] = {}
"""The login link works once: the first test logs in, the others reuse its cookies."""


async def _window(browser: Any, link: str, width: int) -> Any:
    """A logged-in page ``width`` pixels wide; axe is injected past the page's CSP."""
    size = {"width": width, "height": 860}
    context = await browser.new_context(
        viewport=size, bypass_csp=True, storage_state=LOGINS.get(link)
    )
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.errors = errors
    await _load(page, link if link not in LOGINS else link.split("/login", 1)[0])
    LOGINS[link] = await context.storage_state()
    return page


async def _load(page: Any, url: str) -> None:
    """Open ``url``; return once the window is drawn and its socket connected (a click
    or a shortcut before that would go nowhere)."""
    await page.goto(url)
    await page.locator("textarea").wait_for()
    await eventually(lambda: _connected(page), timeout=30, what="the page's socket")


async def _connected(page: Any) -> bool:
    return bool(await page.evaluate("!!(window.socket && window.socket.connected)"))


async def _ask_wide(page: Any) -> None:
    """Send a question whose answer is too wide for a narrow window, and wait for it."""
    box = page.locator("textarea")
    await box.fill('What does @"report.pdf" say about revenue? ' + "Unbreakable" * 12)
    await box.press("Enter")
    await page.locator(".docent-md[data-turn] .docent-table").first.wait_for()
    await page.locator(".docent-streaming").wait_for(state="detached", timeout=60_000)


async def _open_chat(page: Any) -> None:
    """Reopen the first chat from the drawer, as a reader coming back to it would."""
    drawer = page.locator(".q-drawer--left")
    if await drawer.evaluate("d => d.getBoundingClientRect().right <= 0"):
        await page.locator("header button").first.click()
    await page.locator(".docent-session").first.click()
    await page.locator(".docent-md[data-turn] .docent-table").first.wait_for()
    await eventually(
        lambda: _drawer_settled(page), timeout=10, what="the drawer to settle after the pick"
    )


async def _drawer_settled(page: Any) -> bool:
    width = await page.evaluate("window.innerWidth")
    right = await page.locator(".q-drawer--left").evaluate("d => d.getBoundingClientRect().right")
    return bool(width >= 1024 or right <= 0)


async def _dark(page: Any, dark: bool) -> None:
    await page.emulate_media(color_scheme="dark" if dark else "light")
    want = "true" if dark else "false"
    await eventually(
        lambda: _body_dark(page, want), timeout=10, what=f"dark mode {want} on the body"
    )


async def _body_dark(page: Any, want: str) -> bool:
    return bool(
        await page.evaluate("String(document.body.classList.contains('body--dark'))") == want
    )


async def test_nothing_is_wider_than_the_chat_column(
    served: tuple[str, FakeOllamaServer], browser: Any, shots: Path
) -> None:
    link, ollama = served
    page = await _window(browser, link, 1400)
    await _ask_wide(page)
    app_url = link.split("/login", 1)[0]
    failures = []
    for width in WIDTHS:
        await page.set_viewport_size({"width": width, "height": 860})
        await _load(page, app_url)  # reopened, as after a restart: the case that scrolled
        await _open_chat(page)
        for dark in (False, True):
            await _dark(page, dark)
            found = await page.evaluate(OVERFLOW_JS)
            theme = "dark" if dark else "light"
            await page.screenshot(path=shots / f"answer-{width}-{theme}.png", full_page=True)
            if found["out"] or found["page"][0] > found["page"][1]:
                failures.append((width, theme, found))
        # The table and the code are wider than the card: they scroll inside it.
        for scroller in (".docent-table", ".docent-code pre"):
            sizes = await page.locator(f".docent-md[data-turn] {scroller}").first.evaluate(
                "el => [el.scrollWidth, el.clientWidth]"
            )
            if sizes[0] <= sizes[1]:
                failures.append((width, scroller, sizes))
    assert not failures, json.dumps(failures, indent=1)
    assert page.errors == []


async def test_the_mention_picker_from_the_keyboard_alone(
    served: tuple[str, FakeOllamaServer], browser: Any, shots: Path
) -> None:
    link, ollama = served
    page = await _window(browser, link, 420)
    await page.keyboard.press("Shift+Escape")  # the shortcut that focuses the message box
    assert await page.evaluate("document.activeElement.tagName") == "TEXTAREA"
    await page.keyboard.type("Compare @", delay=20)
    options = page.locator(".docent-mention-option")
    # Both files, then the folder one of them is in (files come first).
    await eventually(lambda: count_is(options, 3), timeout=10, what="both files listed")
    first = await options.nth(0).locator(".q-item__label").first.inner_text()
    await page.keyboard.press("ArrowDown")
    await eventually(
        lambda: _active_is(page, 1), timeout=10, what="ArrowDown to move the highlight"
    )
    # The box names the highlighted option for a screen reader; axe has no complaint.
    active_id = await page.locator("textarea").get_attribute("aria-activedescendant")
    assert active_id and await page.locator(f"#{active_id}.docent-active").count() == 1
    await page.add_script_tag(path=str(AXE))
    found = await page.evaluate(AXE_JS)
    assert [v for v in found if v["impact"] in ("critical", "serious")] == []
    await page.keyboard.press("ArrowUp")
    await eventually(lambda: _active_is(page, 0), timeout=10, what="ArrowUp to move it back")
    await page.keyboard.press("Escape")
    await page.locator(".docent-mention-popup").wait_for(state="hidden")
    assert await page.locator("textarea").input_value() == "Compare @"
    # Typing on brings it back; ArrowDown past the last comes round to the first (the long
    # name), and Tab picks it.
    await page.keyboard.type("r", delay=20)
    await options.first.wait_for()
    await page.keyboard.press("Backspace")
    # Both files, then the folder one of them is in (files come first).
    await eventually(lambda: count_is(options, 3), timeout=10, what="both files listed")
    await page.keyboard.press("ArrowDown")
    await eventually(lambda: _active_is(page, 1), timeout=10, what="the second one highlighted")
    await page.keyboard.press("ArrowDown")
    await eventually(lambda: _active_is(page, 2), timeout=10, what="the folder highlighted")
    await page.keyboard.press("ArrowDown")
    await eventually(lambda: _active_is(page, 0), timeout=10, what="round to the first")
    await page.keyboard.press("Tab")
    await page.locator(".docent-mention-popup").wait_for(state="hidden")
    chip = page.locator(".docent-composer-chip")
    await chip.wait_for()
    picked = first
    assert picked == LONG_NAME
    shown = await chip.locator(".q-chip__content").inner_text()
    assert len(shown) <= 24 < len(LONG_NAME), shown  # compact, however long the name
    assert picked in (await chip.get_attribute("aria-label") or "")  # the whole name...
    await chip.hover()
    await page.locator(".q-tooltip", has_text=picked).wait_for()  # ...shown on hover
    await page.screenshot(path=shots / "picker-chip-420.png")
    assert await page.evaluate("document.activeElement.tagName") == "TEXTAREA"
    await page.keyboard.type("with @rep", delay=20)
    await options.first.wait_for()
    await page.keyboard.press("Enter")  # Enter picks while the list is open...
    await eventually(lambda: count_is(chip, 2), timeout=10, what="the second chip")
    await page.keyboard.type("please.", delay=10)
    await page.keyboard.press("Enter")  # ...and sends once it is closed
    bubble = page.locator(".docent-bubble").last
    await bubble.locator(".docent-mention-chip").nth(1).wait_for()
    assert "Compare" in await bubble.inner_text()
    assert await chip.count() == 0  # the box is empty again
    assert page.errors == []


async def _active_is(page: Any, index: int) -> bool:
    active = await page.evaluate(
        "[...document.querySelectorAll('.docent-mention-option')]"
        ".findIndex((o) => o.classList.contains('docent-active'))"
    )
    return bool(active == index)


VIEWS = ("empty", "answer", "settings", "viewer", "help")
CASES = ((1400, False), (1400, True), (420, False), (420, True))


async def test_axe_finds_nothing_critical_or_serious(
    served: tuple[str, FakeOllamaServer], browser: Any, shots: Path
) -> None:
    link, ollama = served
    page = await _window(browser, link, 1400)
    if not await page.locator(".docent-session").count():
        await _ask_wide(page)
    app_url = link.split("/login", 1)[0]
    counts: dict[str, dict[str, int]] = {}
    details: dict[str, list[dict[str, Any]]] = {}
    for width, dark in CASES:
        await page.set_viewport_size({"width": width, "height": 860})
        await _dark(page, dark)
        for view in VIEWS:
            await _load(page, app_url)
            await _dark(page, dark)
            if view != "empty":
                await _open_chat(page)
            if view == "settings":
                await page.locator("header button:has(i:text-is('settings'))").click()
                await page.locator(".q-dialog").wait_for()
            elif view == "help":
                await page.locator("button[aria-label^='How Docent works']").click()
                await page.locator(".q-dialog dl").wait_for()
                await page.locator(".q-dialog svg").first.wait_for()  # the graph drawn
                await page.locator(".q-dialog dl").scroll_into_view_if_needed()
            elif view == "viewer":
                await page.locator(".docent-md[data-turn] .docent-cite").first.click()
                await page.locator(".docent-pdf[data-shown]").wait_for(timeout=30_000)
            name = f"{view}-{width}-{'dark' if dark else 'light'}"
            await page.add_script_tag(path=str(AXE))
            found = await page.evaluate(AXE_JS)
            await page.screenshot(path=shots / f"axe-{name}.png")
            counts[name] = {}
            for v in found:
                counts[name][v["impact"]] = counts[name].get(v["impact"], 0) + v["nodes"]
            details[name] = found
    (shots / "axe.json").write_text(json.dumps({"counts": counts, "details": details}, indent=1))
    print(json.dumps(counts, indent=1))
    bad = {
        k: [v for v in found if v["impact"] in ("critical", "serious")]
        for k, found in details.items()
    }
    bad = {k: v for k, v in bad.items() if v}
    assert not bad, json.dumps(bad, indent=1)


async def test_menus_and_shortcuts_from_the_keyboard(
    served: tuple[str, FakeOllamaServer], browser: Any, shots: Path
) -> None:
    link, _ = served
    page = await _window(browser, link, 1400)
    if not await page.locator(".docent-session").count():
        await _ask_wide(page)
    # A menu opened from the keyboard is walked with the arrow keys and picked with Enter.
    sort = page.locator("button[aria-label='Sort']")
    await sort.focus()
    await page.keyboard.press("Enter")
    menu = page.locator(".q-menu")
    await menu.wait_for()
    await eventually(lambda: _focused_is(page, "By name"), timeout=10, what="the first item")
    await page.keyboard.press("ArrowDown")
    await eventually(lambda: _focused_is(page, "By status"), timeout=10, what="the next item")
    await page.keyboard.press("ArrowUp")
    await page.keyboard.press("ArrowUp")  # past the first: round to the last
    await eventually(lambda: _focused_is(page, "Newest first"), timeout=10, what="the last")
    # The focus ring shows: a solid outline two pixels wide, in both themes.
    for dark in (False, True):
        await _dark(page, dark)
        ring = await page.evaluate(
            "(() => { const s = getComputedStyle(document.activeElement);"
            " return [s.outlineStyle, s.outlineWidth, s.outlineColor]; })()"
        )
        assert ring[:2] == ["solid", "2px"], ring
        await page.screenshot(path=shots / f"menu-focus-{'dark' if dark else 'light'}.png")
    await page.keyboard.press("Enter")
    await menu.wait_for(state="hidden")

    # The shortcuts Help lists.
    await page.keyboard.press("Control+k")
    await eventually(
        lambda: _active_inside(page, ".docent-session-search"), timeout=10, what="search focused"
    )
    await page.keyboard.press("Shift+Escape")
    await eventually(lambda: _active_inside(page, ".docent-composer"), timeout=10, what="box")
    await _open_chat(page)
    await page.keyboard.press("Control+Shift+o")
    await page.get_by_text("Ask about your documents.").wait_for()
    assert not await page.locator(".docent-md[data-turn]").count()
    drawer = page.locator(".q-drawer--left")
    await page.keyboard.press("Control+Shift+s")
    await eventually(lambda: _drawer_right_at_most(drawer, 0), timeout=10, what="sidebar hidden")
    await page.keyboard.press("Control+Shift+s")
    await eventually(lambda: _drawer_right_above(drawer, 0), timeout=10, what="sidebar shown")
    # At 420 px the sidebar is hidden; Ctrl+K brings it out with the search box focused.
    await page.set_viewport_size({"width": 420, "height": 860})
    await _load(page, link.split("/login", 1)[0])
    await eventually(lambda: _drawer_right_at_most(drawer, 0), timeout=10, what="it hidden")
    await page.keyboard.press("Control+k")
    await eventually(lambda: _drawer_right_above(drawer, 0), timeout=10, what="sidebar out")
    await eventually(
        lambda: _active_inside(page, ".docent-session-search"), timeout=10, what="search focused"
    )
    await page.keyboard.type("revenue")
    await page.screenshot(path=shots / "search-shortcut-420.png")
    assert page.errors == []


async def test_shortcuts_are_known_before_the_socket_connects(
    served: tuple[str, FakeOllamaServer], browser: Any
) -> None:
    # The table came over the socket once; a key pressed before it landed (a loaded
    # machine, Ctrl+K right after a reload) did nothing. With the socket refused, the page
    # has only what it was served.
    link, _ = served
    page = await _window(browser, link, 1400)
    await page.route("**/socket.io/**", lambda route: route.abort())  # long polling
    await page.route_web_socket(re.compile("socket\\.io"), lambda socket: None)  # no server
    await page.goto(link.split("/login", 1)[0])
    await page.locator("textarea").wait_for()
    assert not await _connected(page)
    known = await page.evaluate("(window.docent && window.docent.shortcuts || []).length")
    assert known == len(SHORTCUTS)


async def _focused_is(page: Any, text: str) -> bool:
    found = await page.evaluate(
        "(() => { const el = document.activeElement;"
        " return el.closest('.q-menu') ? el.innerText.trim() : ''; })()"
    )
    return bool(found == text)


async def _active_inside(page: Any, selector: str) -> bool:
    return bool(await page.evaluate(f"!!document.activeElement.closest({json.dumps(selector)})"))


async def _drawer_right_at_most(drawer: Any, x: float) -> bool:
    return bool(await drawer.evaluate("d => d.getBoundingClientRect().right") <= x)


async def _drawer_right_above(drawer: Any, x: float) -> bool:
    return bool(await drawer.evaluate("d => d.getBoundingClientRect().right") > x)
