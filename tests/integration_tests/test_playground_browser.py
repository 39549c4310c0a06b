"""The playgrounds and `/docs` in a real browser: the OS's Chromium, headless, driven by Playwright.

uvicorn serves `langchain_reliable.server:app` (offline demo graphs) on loopback;
Playwright drives Chromium from the OS packages (`/usr/bin/chromium`; CI's
`.ci/run` installs it, Playwright's own browser download is never used). Each
page must load with no page error and no console error. Screenshots go to a
folder under pytest's temporary directory (`playground-shots*`: the landing page, and
each playground after a run); their paths are printed (`pytest -s` shows them).

Skipped only when no Chromium binary exists (or `playwright` is not installed).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration_tests._servers import served

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]

# The flags that work on a closed network: no background calls, no sandbox as root.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ANSWER = (
    "The Treaty of Versailles was signed on 28 June 1919. "
    "Germany had to pay $442 billion in reparations."
)
PASSAGES = [
    "The Treaty of Versailles was signed on 28 June 1919 in the Hall of Mirrors.",
    "It came into force on 10 January 1920.",
]
LABELS = ("supported", "unsupported", "contradicted", "uncertain")
TIMEOUT_MS = 60_000


def chromium_path() -> str | None:
    """The OS's Chromium: `$CHROMIUM`, `/usr/bin/chromium`, or one on PATH."""
    for candidate in (
        os.environ.get("CHROMIUM"),
        "/usr/bin/chromium",
        shutil.which("chromium"),
        shutil.which("chromium-browser"),
    ):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    executable = chromium_path()
    if executable is None:
        pytest.skip("no Chromium binary (apt-get install chromium; .ci/run installs it)")
    sync_api = pytest.importorskip("playwright.sync_api")
    # Playwright gives every launch a fresh, empty profile (user-data-dir) of its own.
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=executable, headless=True, args=CHROMIUM_ARGS
        )
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("playground-shots")
    print(f"\nscreenshots: {folder}")
    return folder


class Page:
    """A browser page that records page errors and console errors."""

    def __init__(self, browser, shots: Path) -> None:
        self.page = browser.new_page(viewport={"width": 1200, "height": 900})
        self.page.set_default_timeout(TIMEOUT_MS)
        self.errors: list[str] = []
        self.shots = shots
        self.page.on("pageerror", lambda exc: self.errors.append(f"pageerror: {exc}"))
        self.page.on(
            "console",
            lambda msg: self.errors.append(f"console: {msg.text}") if msg.type == "error" else None,
        )

    def shot(self, name: str) -> Path:
        path = self.shots / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=True)
        print(f"screenshot: {path}")
        return path

    def assert_clean(self) -> None:
        assert not self.errors, self.errors


@pytest.fixture
def page(browser, shots: Path) -> Iterator[Page]:
    opened = Page(browser, shots)
    yield opened
    opened.page.close()


def _open_playground(page: Page, url: str, title: str) -> None:
    page.page.goto(url)
    page.page.get_by_role("heading", name=title).wait_for()
    page.page.locator("#serving").wait_for()


def _assert_untouched_form(page: Page) -> None:
    """Before anything is typed: the preset's values as placeholders, no error, examples."""
    p = page.page
    policy = p.locator("#policy")
    assert policy.input_value() == "balanced"
    options = policy.locator("option").evaluate_all("options => options.map(o => o.value)")
    assert {"strict", "balanced", "lenient"} <= set(options)
    assert p.locator("#return_at option").first.text_content() == "HIGH (balanced)"
    assert p.locator("#filter_at option").first.text_content() == "MEDIUM (balanced)"
    assert p.locator("#high_threshold").get_attribute("placeholder") == "0.85 (balanced)"
    policy.select_option("strict")
    assert p.locator("#filter_at option").first.text_content() == "refuse (strict)"
    policy.select_option("balanced")
    assert "None" not in p.locator("body").inner_text()
    assert p.locator("#status").inner_text() == ""  # no validation error before Run
    assert p.locator(".error").count() == 0
    assert p.locator("#examples button").count() >= 2


def _run(page: Page) -> str:
    """Press Run; the result's text once it is shown."""
    p = page.page
    p.get_by_role("button", name="Run").click()
    p.locator("#result").wait_for(state="visible")
    return p.locator("#result").inner_text()


def _run_verify(page: Page) -> str:
    """Fill the verify playground as a person would, press Run; the result's text."""
    p = page.page
    p.locator("#answer").fill(ANSWER)
    for index, passage in enumerate(PASSAGES):
        p.get_by_label(f"Passage {index + 1}").fill(passage)
    p.locator("#question").fill("When was the treaty signed?")
    return _run(page)


def _assert_verify_result(page: Page, text: str) -> None:
    p = page.page
    assert p.locator(".badge").inner_text() in ("filter", "refuse"), text
    assert "not passed" in text and "28 June 1919" in text
    rendered = p.locator("#rendered")
    assert rendered.locator("mark.supported").count() >= 1
    assert rendered.locator("del.unsupported, del.contradicted, del.uncertain").count() >= 1
    assert "\\n" not in text and "{" not in text  # rendered, not raw JSON
    colours = {
        label: p.locator(f".legend .{label}").evaluate("e => getComputedStyle(e).backgroundColor")
        for label in LABELS
    }
    assert len(set(colours.values())) == len(LABELS), colours  # told apart


def test_verify_playground_runs_and_shows_the_result(server, page):
    _open_playground(page, f"{server}/verify/playground/", "Verify playground")
    _assert_untouched_form(page)
    page.shot("verify-playground")
    text = _run_verify(page)
    _assert_verify_result(page, text)
    page.shot("verify-playground-result")
    page.assert_clean()


def test_rag_playground_answers_an_example_and_refuses_off_script(server, page):
    _open_playground(page, f"{server}/reliable-rag/playground/", "Reliable RAG playground")
    p = page.page
    assert "offline demo" in p.locator("#serving").inner_text()
    _assert_untouched_form(page)
    p.locator("#examples button", has_text="Not recorded").click()
    assert p.locator("#question").input_value() == "What is the capital of France?"
    text = _run(page)
    assert p.locator(".badge").inner_text() == "refuse"
    assert "not passed" in text and "offline demo mode" in p.locator("#reason").inner_text()
    p.locator("#examples button").first.click()
    _run(page)
    expect = pytest.importorskip("playwright.sync_api").expect
    expect(p.locator("#reason")).not_to_contain_text("offline demo mode")
    assert p.locator(".badge").inner_text() in ("return", "filter", "refuse")
    assert p.locator("#rendered table tr").count() >= 2  # the verdicts, one row per claim
    page.shot("rag-playground-result")
    page.assert_clean()


@pytest.mark.parametrize(
    ("question", "decision"),
    [
        ("How does aspirin work and what is it used for?", "filter"),
        ("How much did Germany have to pay under the Treaty of Versailles", "refuse"),
    ],
)
def test_rag_playground_marks_up_the_answer_it_filtered_or_refused(
    server, page, question, decision
):
    """What was removed, and why, is shown on a filtered and a refused answer too."""
    _open_playground(page, f"{server}/reliable-rag/playground/", "Reliable RAG playground")
    p = page.page
    p.locator("#examples button", has_text=question).click()
    _run(page)
    assert p.locator(".badge").inner_text() == decision
    answer = p.locator("#rendered p").nth(1)  # the marked-up answer, after the summary
    removed = answer.locator("del.unsupported, del.contradicted, del.uncertain")
    assert removed.count() >= 1, p.locator("#rendered").inner_html()
    assert removed.first.inner_text().strip()  # the removed claim's own words
    assert (removed.first.get_attribute("title") or "").startswith(("unsupported", "contra"))
    if decision == "filter":
        assert answer.locator("mark.supported").count() >= 1
    page.shot(f"rag-playground-{decision}")
    page.assert_clean()


def test_a_run_without_input_says_what_is_missing(server, page):
    _open_playground(page, f"{server}/verify/playground/", "Verify playground")
    page.page.get_by_role("button", name="Run").click()
    assert page.page.locator("#status").inner_text() == "Type the answer to check first."
    assert page.page.locator("#result").is_hidden()
    page.assert_clean()


def test_docs_render_offline(server, page):
    page.page.goto(f"{server}/docs")
    page.page.locator(".opblock").first.wait_for()
    assert page.page.locator(".opblock-summary-path", has_text="/verify/invoke").count() >= 1
    assert page.page.locator(".opblock-summary-path", has_text="/reliable-rag/invoke").count() >= 1
    page.shot("docs")
    page.assert_clean()


def test_the_landing_page_says_what_it_serves_and_links_the_playgrounds(server, page):
    """`/` in Chromium: what is served, and links to the two playgrounds and the API docs."""
    p = page.page
    p.goto(f"{server}/")
    p.get_by_role("heading", name="langchain-reliable").wait_for()
    assert "offline demo: answers are recorded" in p.locator("#serving").inner_text()
    page.shot("landing")
    p.get_by_role("link", name="Verify playground").click()
    p.get_by_role("heading", name="Verify playground").wait_for()
    assert p.url.endswith("/verify/playground/")
    p.goto(f"{server}/")
    p.get_by_role("link", name="Reliable RAG playground").click()
    p.get_by_role("heading", name="Reliable RAG playground").wait_for()
    p.goto(f"{server}/")
    p.get_by_role("link", name="API docs").click()
    p.wait_for_url("**/docs")
    page.assert_clean()


# -- with an API key: the key form ------------------------------------------------------

API_KEY = "browser-key-7d1e"


@pytest.fixture(scope="module")
def keyed_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from served(tmp_path_factory, "browser-key", RELIABLE_RAG_API_KEY=API_KEY)


def _enter_key(page: Page, key: str) -> None:
    """Type `key` in the key form and send it, as a person would."""
    page.page.get_by_label("API key").fill(key)
    page.page.get_by_role("button", name="Use this key").click()


def test_a_keyed_playground_is_used_with_the_key_form(keyed_server, page):
    """Refused without the key; the key typed once in the form; the playground runs; forgotten."""
    p = page.page
    url = f"{keyed_server}/verify/playground/"

    refused = p.goto(url)
    assert refused is not None and refused.status == 401
    p.get_by_role("heading", name="API key needed").wait_for()
    assert p.get_by_role("heading", name="Verify playground").count() == 0
    page.shot("keyed-playground-refused")

    _enter_key(page, "not-the-key")
    p.get_by_text("Wrong key").wait_for()
    assert "(401)" in p.locator("#key-status").inner_text()
    assert p.url == url and p.context.cookies() == []
    page.shot("keyed-playground-wrong-key")

    _enter_key(page, API_KEY)
    p.get_by_role("heading", name="Verify playground").wait_for()  # the same address, served
    assert p.url == url
    (cookie,) = p.context.cookies()
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict" and cookie["path"] == "/"
    assert API_KEY not in cookie["value"]
    assert p.evaluate("document.cookie") == ""  # the page's scripts cannot read it

    text = _run_verify(page)
    page.shot("keyed-playground-result")
    _assert_verify_result(page, text)
    assert API_KEY not in p.content()

    p.goto(f"{keyed_server}/")
    p.get_by_text("This browser holds the server's key").wait_for()
    assert API_KEY not in p.content()
    p.get_by_role("button", name="Forget the key").click()
    p.get_by_role("button", name="Use this key").wait_for()
    assert p.context.cookies() == []
    page.shot("keyed-landing-forgotten")
    again = p.goto(url)
    assert again is not None and again.status == 401

    # The only errors: Chromium's console lines for the 401s this test asked for.
    unexpected = [e for e in page.errors if "status of 401" not in e]
    assert not unexpected, unexpected
