"""How well the PDF viewer finds a support span in the page PDF.js draws.

    uv run python bench/pdf_highlight.py [--pdfs 12] [--pages 20] [--per-page 4]

A span's text comes from the page's text as Docent stored it (pypdf, through the app's
loader and chunker); the viewer looks for it in the text layer of the same page as PDF.js
reads it, with ui/static/pdf_view.mjs's own ``fold`` and ``locate``, in Debian's Chromium.
For sentences of the stored chunks of corpus PDFs it prints how each was found: whole
(every character, as is), ends (between its first and last words), part (from one end),
or not at all; and how long PDF.js took to read a page's text. The machine is shared:
compare timings of one run only.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import threading
from collections import Counter
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ingest.chunker import chunk_pages  # noqa: E402

from graph.support import is_claim, split_sentences  # noqa: E402
from ingest.loaders import open_document  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
PDFS = ROOT.parent / "shared" / "corpus" / "pdfs"
CHROMIUM = "/usr/bin/chromium"
PAGE = """<!doctype html><meta charset="utf-8"><script type="module">
import * as pdfjs from "/ui/static/pdfjs/pdf.min.mjs";
import { fold, flatten, locate } from "/ui/static/pdf_view.mjs";
window.findSpans = async (url, spans) => {
  const data = new Uint8Array(await (await fetch(url)).arrayBuffer());
  const doc = await pdfjs.getDocument({ data, isEvalSupported: false }).promise;
  const pages = new Map();
  const out = [];
  for (const span of spans) {
    if (!pages.has(span.page)) {
      const started = performance.now();
      const page = await doc.getPage(span.page);
      const content = await page.getTextContent();
      const items = content.items.filter((i) => i.str !== undefined).map((i) => i.str);
      pages.set(span.page, { ...flatten(items), ms: performance.now() - started });
    }
    const { flat, ms } = pages.get(span.page);
    const found = locate(flat, fold(span.text));
    out.push({ how: found ? found.how : "none", ms });
  }
  return out;
};
window.ready = true;
</script>"""


def spans_of(path: Path, pages: int, per_page: int) -> list[dict[str, Any]]:
    """Sentences of the stored chunks of the first ``pages`` pages, ``per_page`` a page,
    spread over the page."""
    with open_document(path) as document:
        read = [p for p in document.pages() if p.number is not None and p.number <= pages]
    by_page: dict[int, list[str]] = {}
    for chunk in chunk_pages(read):
        for sentence in split_sentences(chunk.text):
            if is_claim(sentence) and len(sentence.text) >= 20 and chunk.page is not None:
                by_page.setdefault(chunk.page, []).append(sentence.text)
    out = []
    for page, sentences in by_page.items():
        unique = list(dict.fromkeys(sentences))
        step = max(1, len(unique) // per_page)
        out += [{"page": page, "text": t} for t in unique[::step][:per_page]]
    return out


class Files(SimpleHTTPRequestHandler):
    """The bench's page, the app's ui/static, and the corpus PDFs, from one local server
    (module scripts are not imported from file:// URLs)."""

    def log_message(self, *args: Any) -> None:
        pass

    def translate_path(self, path: str) -> str:
        path = path.split("?", 1)[0]
        if path.startswith("/corpus/"):
            return str(PDFS / Path(path).name)
        return str(ROOT / path.lstrip("/"))

    def do_GET(self) -> None:  # noqa: N802 (the stdlib's name)
        if self.path == "/":
            body = PAGE.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(body)
            return
        super().do_GET()


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pdfs", type=int, default=12)
    parser.add_argument("--pages", type=int, default=20)
    parser.add_argument("--per-page", type=int, default=4)
    args = parser.parse_args()
    from playwright.async_api import async_playwright

    chosen = []
    for path in sorted(PDFS.glob("*.pdf")):
        try:
            spans = spans_of(path, args.pages, args.per_page)
        except Exception:  # unreadable, encrypted, image-only: nothing to find
            continue
        if spans:
            chosen.append((path, spans))
        if len(chosen) == args.pdfs:
            break
    server = ThreadingHTTPServer(("127.0.0.1", 0), Files)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    tallies: Counter[str] = Counter()
    per_pdf = []
    times: list[float] = []
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=["--headless"])
        page = await browser.new_page()
        await page.goto(f"{base}/")
        await page.wait_for_function("window.ready === true")
        for path, spans in chosen:
            url = f"{base}/corpus/{path.name}"
            found = await page.evaluate("([u, s]) => window.findSpans(u, s)", [url, spans])
            counts = Counter(r["how"] for r in found)
            tallies.update(counts)
            times += list({r["ms"] for r in found})
            per_pdf.append((path.name, len(spans), counts))
        await browser.close()
    server.shutdown()
    total = sum(tallies.values())
    print(f"{total} spans from {len(chosen)} PDFs (up to {args.pages} pages each)")
    for how in ("whole", "ends", "part", "none"):
        print(f"  {how:>5}: {tallies[how]:5d}  {tallies[how] / total:.3f}")
    print(f"PDF.js text of a page: p50 {statistics.median(times):.0f} ms, max {max(times):.0f} ms")
    print(json.dumps([{"pdf": n, "spans": c, **dict(k)} for n, c, k in per_pdf], indent=1))


if __name__ == "__main__":
    asyncio.run(main())
