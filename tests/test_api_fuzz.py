"""Fuzz every documented route from /openapi.json with schemathesis: no 500s."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from tests.api_app import api_app

MAX_EXAMPLES = 10
"""Per operation and phase: enough to find a crash on bad input, few enough for CI."""


async def test_fuzzing_the_openapi_schema_finds_no_server_errors(tmp_path: Path) -> None:
    async with api_app(tmp_path) as app:
        schema = await app.client.get("/openapi.json")
        assert schema.status_code == 200
        documented = set(schema.json()["paths"])
        assert {"/api/sessions", "/api/sessions/{session_id}", "/v1/chat/completions"} <= (
            documented
        )
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "schemathesis.cli",
            "run",
            f"{app.url}/openapi.json",
            "--header",
            f"Authorization: Bearer {app.container.token}",
            "--checks",
            "not_a_server_error",
            "--max-examples",
            str(MAX_EXAMPLES),
            "--seed",
            "20261126",
            "--workers",
            "1",
            "--generation-database",
            ":memory:",
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            cwd=tmp_path,
        )
        output, _ = await process.communicate()
    report = output.decode(errors="replace")
    assert process.returncode == 0, report
    assert "passed" in report and "500" not in report.split("SUMMARY")[-1]
