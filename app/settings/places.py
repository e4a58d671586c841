"""Settings of where Docent keeps its files and where it listens."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator
from pydantic_settings import CliSuppress

from app.editable import Editable
from app.paths import TOKEN_FILE, default_data_dir


class PathSettings(BaseModel):
    """The data dir, the watched folder and the index's store."""

    model_config = ConfigDict(frozen=True, extra="forbid", validate_default=True)

    data_dir: Path = Field(
        default_factory=default_data_dir,
        validate_default=True,
        description="Index, registry, sessions, API token and logs live here.",
    )
    docs: Annotated[Path | None, Editable("Documents folder", "folder")] = Field(
        None,
        validate_default=True,
        description="The watched documents folder; defaults to <data dir>/documents.",
    )
    chroma_url: str | None = Field(
        None, description="A Chroma server to use instead of the embedded store."
    )

    @field_validator("data_dir")
    @classmethod
    def _resolved(cls, value: Path) -> Path:
        return value.expanduser().resolve()

    @field_validator("docs")
    @classmethod
    def _in_data_dir_unless_given(cls, value: Path | None, info: ValidationInfo) -> Path | None:
        if value is not None:
            return value.expanduser().resolve()
        data_dir: Path | None = info.data.get("data_dir")  # None: refused, its error says why
        return data_dir / "documents" if data_dir else None

    @property
    def docs_dir(self) -> Path:
        """The watched folder, always resolved."""
        assert self.docs is not None
        return self.docs

    @property
    def token_path(self) -> Path:
        return self.data_dir / TOKEN_FILE


class ServerSettings(BaseModel):
    """The window and the API: where they listen, and what a request may bring."""

    model_config = ConfigDict(frozen=True, extra="forbid", validate_default=True)

    host: str = Field("127.0.0.1", description="Address the window and API listen on.")
    port: int = Field(8080, ge=0, le=65535, description="Port of the window and API.")
    max_upload_mb: int = Field(100, ge=1, description="Largest file accepted by upload, in MB.")
    max_body_mb: float = Field(
        4, gt=0, description="Largest request body the API reads (uploads have their own cap)."
    )
    session_idle_hours: float = Field(
        12.0,
        gt=0,
        description="A window login ends after this many hours without use (the API token "
        "never does); Lock in the window ends it at once.",
    )
    open_browser: CliSuppress[bool] = Field(
        True, description="Open a browser tab on start (the command line says --no-browser)."
    )
    native: bool = Field(False, description="Open a native window instead of a tab.")
