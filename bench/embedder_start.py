"""Time to the first embedding: a fresh process imports the embedder, loads it, embeds once.

Each run is a new interpreter, as a start of the app is, and prints the median of:
- `import`: ``models.embeddings`` imported;
- `load`: ``MiniLMEmbedder()`` built (weights found and checked, the ONNX session made);
- `first embedding`: one short text embedded;
- `total`: all three, from the interpreter's first line of ours;
- `cpu import`, `cpu load`: the CPU seconds (all threads) those took, which a loaded
  machine disturbs less than the wall clock.

Where the embedder can keep its rewritten graph (``saved_graphs``, models/encoder_session.py),
a third line times a start that finds it saved by an earlier one: what every start after
the first does in the app. A baseline checkout (e.g. an export of main with its own
`.venv`) runs interleaved with this one, so a busy moment of the shared machine weighs on
each alike.

    uv run python bench/embedder_start.py [--runs 5] [--baseline /tmp/main-export]
"""

from __future__ import annotations

import argparse
import inspect
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from models.embeddings import MiniLMEmbedder  # noqa: E402

PROBE = """
import inspect, json, sys, time
from pathlib import Path
began, began_cpu = time.perf_counter(), time.process_time()
from models.embeddings import MiniLMEmbedder
imported, imported_cpu = time.perf_counter(), time.process_time()
kept = {"saved_graphs": Path(sys.argv[1])} if len(sys.argv) > 1 else {}
embedder = MiniLMEmbedder(**kept)
loaded, loaded_cpu = time.perf_counter(), time.process_time()
embedder.embed(["How many days of annual leave carry over?"])
embedded = time.perf_counter()
print(json.dumps({
    "import": imported - began,
    "load": loaded - imported,
    "first embedding": embedded - loaded,
    "total": embedded - began,
    "cpu import": imported_cpu - began_cpu,
    "cpu load": loaded_cpu - imported_cpu,
}))
"""


def one_run(checkout: Path, saved_graphs: Path | None = None) -> dict[str, float]:
    venv_python = checkout / ".venv" / "bin" / "python"
    python = str(venv_python) if venv_python.is_file() else sys.executable
    cmd = [python, "-c", PROBE, *([str(saved_graphs)] if saved_graphs else [])]
    out = subprocess.run(cmd, cwd=checkout, capture_output=True, text=True, check=True)
    figures: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--baseline", type=Path, help="another checkout to time, interleaved")
    args = parser.parse_args()
    checkouts = {"this checkout": ROOT}
    if args.baseline:
        checkouts["baseline"] = args.baseline
    results: dict[str, list[dict[str, float]]] = {name: [] for name in checkouts}
    with tempfile.TemporaryDirectory(prefix="embedder-start-") as tmp:
        saved = Path(tmp)
        if "saved_graphs" in inspect.signature(MiniLMEmbedder).parameters:
            one_run(ROOT, saved)  # the first start, which saves the graph
            results["this checkout, graph saved by an earlier start"] = []
        for _ in range(args.runs):
            for name, checkout in checkouts.items():
                results[name].append(one_run(checkout))
            if len(results) > len(checkouts):
                results["this checkout, graph saved by an earlier start"].append(
                    one_run(ROOT, saved)
                )
    for name, runs in results.items():
        print(f"{name} (s, median of {len(runs)}):")
        for label in runs[0]:
            values = [r[label] for r in runs]
            print(
                f"  {label:16} {statistics.median(values):6.3f}   "
                f"(runs: {', '.join(f'{v:.3f}' for v in values)})"
            )


if __name__ == "__main__":
    main()
