"""The console's browser tests: one okura server and one headless Chromium (the system's,
driven by Playwright) per module; screenshots go to test-artifacts/console/."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from conftest import Server, imported, unavailable

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "console"
# Each wait on the page gives up after this long (ms): conditions, never sleeps.
TIMEOUT = 10_000


def chromium_path() -> str | None:
    for candidate in (os.environ.get("OKURA_CHROMIUM"), shutil.which("chromium"),
                      shutil.which("chromium-browser"), shutil.which("google-chrome")):
        if candidate and os.path.exists(candidate):
            return candidate
    return None


@pytest.fixture(scope="module")
def console_server(tmp_path_factory):
    s3 = tmp_path_factory.mktemp("s3")
    (s3 / "exports").mkdir()  # a bucket
    code = tmp_path_factory.mktemp("functions")
    (code / "console_functions.py").write_text("def accept(event, context):\n    return None\n")
    (code / "okura.toml").write_text(
        f'[functions.accept]\nhandler = "console_functions:accept"\ncode = "{code}"\n')
    server = Server("--status-delay", "0", "--s3-dir", str(s3),
                    "--config", str(code / "okura.toml"))
    yield server
    server.stop()


@pytest.fixture(scope="module")
def browser():
    executable = chromium_path()
    if executable is None:
        unavailable("no Chromium installed (apt-get install chromium, or set OKURA_CHROMIUM)")
    sync_api = imported("playwright.sync_api", "Playwright (the test extra) is not installed")
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, headless=True,
                                              args=["--no-sandbox"])
        yield launched
        launched.close()


@pytest.fixture
def page(browser, console_server):
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    opened = context.new_page()
    opened.set_default_timeout(TIMEOUT)
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    opened.base = console_server.url + "/console/"
    yield opened
    context.close()
    assert not errors, f"the page raised: {errors}"


def screenshot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)
