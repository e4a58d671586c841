"""The walk of one dropped file through Docent's ingest, counted.

Starts real Services watching an empty folder (the real watcher, parser process, embedder
and stores), copies one PDF into it as a user drops a file, and profiles every thread
from the copy until the file is ready. It prints:

- registry reads: the calls into the registry that read a file's row or the list
  (``get``, ``get_by_path``, ``list`` …) from outside it, by name;
- threads: the threads of this process that ran Docent's code for the file, by name
  (the watcher's, the event loop, the file's worker, the batcher …), and whether the
  file went to the parser process.

    uv run python bench/file_walk.py [--file PATH]

Profiling is set before the services start, so that their long-lived threads are
profiled too; only the calls after the copy are counted.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.container import build_services  # noqa: E402
from app.settings import Settings  # noqa: E402
from bench.library import CORPUS  # noqa: E402
from ingest.document_parts import DocStatus  # noqa: E402

PRODUCT = ("app", "graph", "ingest", "models")
REGISTRY = ROOT / "ingest" / "index" / "registry.py"
READS = ("get", "list", "count", "find", "exists", "paths", "all", "by_")
PDF = CORPUS / "pdfs" / "docugami__ntsb-aviation-incident-accident-reports_20080102X00005.pdf"


class FileWalk:
    """What runs, on which thread, while ``recording`` is set."""

    def __init__(self) -> None:
        self.recording = False
        self.reads: Counter[str] = Counter()
        self.threads: Counter[int] = Counter()
        self.names: dict[int, set[str]] = {}
        """A thread's names: a pool's thread takes each file's name while it runs it."""
        self.modules: set[str] = set()
        self._product: dict[str, bool] = {}

    def _is_product(self, filename: str) -> bool:
        known = self._product.get(filename)
        if known is None:
            path = Path(filename)
            known = path.is_absolute() and path.is_relative_to(ROOT)
            known = known and path.relative_to(ROOT).parts[0] in PRODUCT
            self._product[filename] = known
        return known

    def profile(self, frame: FrameType, event: str, _arg: Any) -> None:
        if not self.recording or event != "call":
            return
        filename = frame.f_code.co_filename
        if not self._is_product(filename):
            return
        thread = threading.current_thread()
        self.threads[thread.ident or 0] += 1
        self.names.setdefault(thread.ident or 0, set()).add(thread.name)
        self.modules.add(str(Path(filename).relative_to(ROOT)))
        caller = frame.f_back
        if (
            filename == str(REGISTRY)
            and caller is not None
            and caller.f_code.co_filename != str(REGISTRY)
            and self._is_product(caller.f_code.co_filename)  # not this bench's own waiting
            and frame.f_code.co_name.lstrip("_").startswith(READS)
        ):
            where = Path(caller.f_code.co_filename).relative_to(ROOT).with_suffix("")
            self.reads[f"{frame.f_code.co_name} from {where}.{caller.f_code.co_name}"] += 1


async def main(source: Path) -> None:
    walk = FileWalk()
    threading.setprofile(walk.profile)
    sys.setprofile(walk.profile)
    with tempfile.TemporaryDirectory(prefix="file-walk-") as tmp:
        docs = Path(tmp) / "docs"
        docs.mkdir()
        flat: dict[str, Any] = {"data_dir": Path(tmp) / "data", "docs": docs}
        config = Settings(**flat | {"open_browser": False, "rerank_download": False})
        services = build_services(config)
        await services.start(watch=True, scan=True)
        try:
            walk.recording = True
            started = time.perf_counter()
            shutil.copy(source, docs / source.name)
            while True:
                rows = services.registry.list()
                if rows and all(r.status in (DocStatus.READY, DocStatus.ERROR) for r in rows):
                    break
                await asyncio.sleep(0.05)
            walk.recording = False
            seconds = time.perf_counter() - started
            status = rows[0].status.value
        finally:
            walk.recording = False
            sys.setprofile(None)
            threading.setprofile(None)
            await services.stop()
    print(f"one dropped file ({source.name}): {status} after {seconds:.1f} s")
    print(f"  registry reads: {sum(walk.reads.values())}")
    for read, calls in walk.reads.most_common():
        print(f"    {read:60} {calls:3}")
    print(f"  threads that ran Docent's code for it: {len(walk.threads)}")
    for ident, calls in walk.threads.most_common():
        name = " / ".join(sorted(walk.names[ident]))
        print(f"    {name[:72]:72} {calls:6} calls")
    parsed_apart = any("process" in m for m in walk.modules)
    print(f"  to the parser process: {'yes' if parsed_apart else 'no'}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", type=Path, default=PDF, help="the file to drop")
    asyncio.run(main(parser.parse_args().file))
