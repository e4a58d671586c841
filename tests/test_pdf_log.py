"""pypdf's own warnings never reach the console: they go to the log, naming the file."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.pdfs import NO_XREF_PDF

ROOT = Path(__file__).resolve().parents[1]

# Logging set up exactly as `run.py` sets it up: the log file, and warnings on the console.
_LOAD = """
import sys
from pathlib import Path
from app.cli.main import setup_logging
from app.settings import Settings
from ingest.loaders import load

setup_logging(Settings(data_dir=Path(sys.argv[1])))
print(load(Path(sys.argv[2]))[0].text.strip())
"""


def test_pypdf_warnings_go_to_the_log_not_the_console(tmp_path: Path) -> None:
    pdf = tmp_path / "no-xref.pdf"  # pypdf warns several times while it repairs this
    pdf.write_bytes(NO_XREF_PDF)
    data = tmp_path / "data"

    done = subprocess.run(
        [sys.executable, "-c", _LOAD, str(data), str(pdf)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )

    assert done.stdout.strip() == "Hello World"
    assert "startxref" not in done.stderr and "pypdf" not in done.stderr
    log = (data / "logs" / "docent.log").read_text()
    assert "no-xref.pdf: pypdf: incorrect startxref pointer" in log
    assert log.count("incorrect startxref pointer") == 1  # once per file, not per repeat
