"""Settings of indexing: how files are cut into chunks, and what one file may take."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class IngestSettings(BaseModel):
    """How a file is chunked, and the memory, time and pages reading one may take."""

    model_config = ConfigDict(frozen=True, extra="forbid", validate_default=True)

    chunk_size: int = Field(1000, ge=100, description="Characters per chunk.")
    chunk_overlap: int = Field(150, ge=0, description="Characters shared by neighbouring chunks.")
    max_file_mb: int = Field(
        200, ge=1, description="Largest file indexed; a bigger one ends 'error' saying so."
    )
    file_time_budget: float = Field(
        900.0, gt=0, description="Seconds one file may take to index before it ends 'error'."
    )
    parser_memory_mb: int = Field(
        1024,
        ge=128,
        description=(
            "Memory (address space, MB) the process that opens one file may use; a file"
            " that needs more ends 'error' saying so. Files are never opened in the app's"
            " own process."
        ),
    )
    ocr: Literal["auto", "off"] = Field(
        "auto",
        description=(
            "'auto' reads scanned PDF pages and picture files (png, jpg, tiff, webp, bmp)"
            " by OCR, offline, with the models installed with Docent; 'off' leaves scanned"
            " pages out and marks pictures 'error'."
        ),
    )
    ocr_memory_mb: int = Field(
        3072,
        ge=512,
        description=(
            "Memory (address space, MB) the one process that reads pages by OCR may use;"
            " its models and onnxruntime reserve about 1.6 GB of it."
        ),
    )
    ocr_page_seconds: float = Field(
        60.0,
        gt=0,
        description="Seconds each page adds to the time budget of a file read by OCR.",
    )
    ocr_max_pages: int = Field(
        500,
        ge=1,
        description=(
            "Pages of one file OCR reads at most (about half an hour of OCR on a laptop);"
            " the file is indexed with those, and its note says which pages were left out."
        ),
    )
