"""Seconds from `run.py` starting to the window being interactive in Chromium.

Starts the real app (`run.py --no-browser`) on a free port with an empty data dir and a
fake Ollama, opens it in Debian's Chromium (Playwright), and waits until the message box
can be typed into (a question asked then is answered once search and chat have loaded),
then until the whole chat page has replaced the starting frame. Prints each run and the
medians. Run from the repo root:

    uv run python -m bench.window_startup [--runs 3]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from tests.fakes.ollama_server import FakeOllamaServer

ROOT = Path(__file__).resolve().parents[1]
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
LINK = re.compile(r"(http://127\.0\.0\.1:\d+\S*)")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def one_run(ollama: str) -> tuple[float, float, float, float, str]:
    """(seconds to the login link, to the page served, to interactive, to the whole chat
    page; the app's breakdown)."""
    from playwright.async_api import async_playwright

    port = free_port()
    async with async_playwright() as playwright:
        # Chromium starts first: its own start is not the app's.
        browser = await playwright.chromium.launch(executable_path="/usr/bin/chromium", args=FLAGS)
        page = await browser.new_page()
        with tempfile.TemporaryDirectory(prefix="docent-startup-") as data:
            env = {k: v for k, v in os.environ.items() if not k.startswith("DOCENT_")}
            env["PYTHONUNBUFFERED"] = "1"  # the login link is read from its output
            started = time.perf_counter()
            process = subprocess.Popen(
                [
                    sys.executable,
                    "run.py",
                    "--no-browser",
                    "--port",
                    str(port),
                    "--data-dir",
                    data,
                    "--ollama-host",
                    ollama,
                ],
                cwd=ROOT,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            )
            links: list[tuple[float, str]] = []

            def read() -> None:
                assert process.stdout is not None
                for line in process.stdout:
                    found = [u for u in LINK.findall(line) if "/login?" in u]
                    links.extend((time.perf_counter() - started, u) for u in found)

            threading.Thread(target=read, daemon=True).start()
            try:
                while not links:  # the window is locked until its one-time link is opened
                    if process.poll() is not None:
                        raise SystemExit(f"run.py exited with {process.returncode}")
                    await asyncio.sleep(0.02)
                linked, link = links[0]
                await page.goto(link, timeout=60_000)
                served = time.perf_counter() - started
                await page.locator("textarea").wait_for(timeout=180_000)
                interactive = time.perf_counter() - started
                await page.get_by_role("button", name="Settings").wait_for(timeout=180_000)
                whole = time.perf_counter() - started
                breakdown = await _breakdown(Path(data) / "logs" / "docent.log")
            finally:
                process.terminate()
                process.wait(timeout=30)
        await browser.close()
    return linked, served, interactive, whole, breakdown


async def _breakdown(log: Path) -> str:
    """The app's own `startup:` log line (logged once its services are up)."""
    for _ in range(200):
        text = log.read_text() if log.exists() else ""
        if "startup:" in text:
            return text.split("startup:", 1)[1].splitlines()[0].strip()
        await asyncio.sleep(0.05)
    return "(no startup line logged)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    results, wholes = [], []
    with FakeOllamaServer() as ollama:
        for n in range(args.runs):
            linked, served, interactive, whole, breakdown = asyncio.run(one_run(ollama.url))
            results.append(interactive)
            wholes.append(whole)
            print(
                f"run {n + 1}: login link printed {linked:.1f} s, page served {served:.1f} s, "
                f"window interactive {interactive:.1f} s, whole chat page {whole:.1f} s",
                flush=True,
            )
            print(f"  app's breakdown: {breakdown}", flush=True)
    print(
        f"median start-to-interactive: {statistics.median(results):.1f} s, to the whole chat "
        f"page: {statistics.median(wholes):.1f} s ({args.runs} runs)"
    )


if __name__ == "__main__":
    main()
