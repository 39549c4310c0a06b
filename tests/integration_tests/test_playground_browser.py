"""The playgrounds and `/docs` in a real browser: the OS's Chromium, headless, driven by Playwright.

uvicorn serves `langchain_reliable.server:app` (offline demo graphs) on loopback;
Playwright drives Chromium from the OS packages (`/usr/bin/chromium`; CI's
`.ci/run` installs it, Playwright's own browser download is never used). Each
page must load with no page error and no console error. Screenshots go to a
temporary folder; their paths are printed (`pytest -s` shows them).

Skipped only when no Chromium binary exists (or `playwright` is not installed).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration_tests._servers import serving_app

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
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    pytest.importorskip("langserve")
    with serving_app(tmp_path_factory.mktemp("browser")) as base:
        yield base


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
def shots() -> Path:
    folder = Path(tempfile.mkdtemp(prefix="playground-shots-"))
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


def _open_playground(page: Page, url: str) -> None:
    page.page.goto(url)
    page.page.get_by_role("heading", name="Try it").wait_for()
    page.page.get_by_text("Policy", exact=True).first.wait_for()


def test_rag_playground_renders(server, page):
    _open_playground(page, f"{server}/reliable-rag/playground/")
    p = page.page
    policy = p.locator("select").first
    assert policy.input_value() == "balanced"
    options = policy.locator("option").evaluate_all("options => options.map(o => o.value)")
    assert {"strict", "balanced", "lenient"} <= set(options)
    assert p.locator('textarea[id="#/properties/question-input"]').count() == 1
    page.shot("rag-playground")
    page.assert_clean()


def test_verify_playground_runs_and_shows_the_result(server, page):
    _open_playground(page, f"{server}/verify/playground/")
    p = page.page
    assert p.locator("select").first.input_value() == "balanced"
    p.locator('textarea[id="#/properties/answer-input"]').fill(ANSWER)
    add = p.locator('[aria-label="Add to Context button"]')
    passages = add.locator("xpath=ancestor::table[1]").locator("tbody textarea")
    for index, passage in enumerate(PASSAGES):
        add.click()
        passages.nth(index).fill(passage)
    p.locator('textarea[id="#/properties/question-input"]').fill("When was the treaty signed?")
    page.shot("verify-playground-filled")

    p.get_by_role("button", name="Start").click()
    output = p.locator("h2", has_text="Output").locator("xpath=following-sibling::div[1]")
    output.get_by_text('"claims"').wait_for()
    text = output.inner_text()
    page.shot("verify-playground-result")

    assert '"decision": "filter"' in text or '"decision": "refuse"' in text, text
    assert '"answer":' in text and "28 June 1919" in text
    assert '"label": "supported"' in text
    assert any(f'"label": "{label}"' in text for label in LABELS[1:]), text
    for internal in ("prepared", "extracted", "history", "route"):
        assert f'"{internal}"' not in text, text
    page.assert_clean()


def test_docs_render_offline(server, page):
    page.page.goto(f"{server}/docs")
    page.page.locator(".opblock").first.wait_for()
    assert page.page.locator(".opblock-summary-path", has_text="/verify/invoke").count() >= 1
    assert page.page.locator(".opblock-summary-path", has_text="/reliable-rag/invoke").count() >= 1
    page.shot("docs")
    page.assert_clean()


def test_the_landing_page_links_the_playgrounds_and_docs(server, page):
    """`/` in Chromium: its links lead to the two playgrounds and the API docs."""
    p = page.page
    p.goto(f"{server}/")
    p.get_by_role("heading", name="langchain-reliable").wait_for()
    p.get_by_role("link", name="Verify playground").click()
    p.get_by_role("heading", name="Try it").wait_for()
    assert p.url.endswith("/verify/playground/")
    p.goto(f"{server}/")
    p.get_by_role("link", name="Reliable RAG playground").click()
    p.get_by_role("heading", name="Try it").wait_for()
    p.goto(f"{server}/")
    p.get_by_role("link", name="API docs").click()
    p.wait_for_url("**/docs")
    page.shot("landing")
    page.assert_clean()
