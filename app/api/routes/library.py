"""Documents: upload into the folder, delete, reindex, and the original file."""

from __future__ import annotations

import contextlib
import logging
import mimetypes
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request, Response
from fastapi.responses import FileResponse

from app.api.deps import DocumentsDep
from app.api.errors import ApiError
from app.api.guard.security import require_token
from app.api.routes.uploads import UPLOAD_PATH, MultipartError, read_parts
from app.api.schemas import ERROR_RESPONSES, ErrorResponse, ReindexRequest, ReindexResult
from app.services.document_errors import (
    BadFileName,
    DocumentError,
    DocumentNotFound,
    FileTooLarge,
    NoSpace,
    UnsupportedType,
)
from app.services.documents import Added, DocumentService
from graph.records import DocumentList

log = logging.getLogger(__name__)

router = APIRouter(
    prefix=UPLOAD_PATH,
    tags=["documents"],
    dependencies=[Depends(require_token)],
    responses=ERROR_RESPONSES,
)

FILE_POLICY = (
    "sandbox; default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline';"
    " frame-ancestors 'none'"
)
STATUS = {
    DocumentNotFound: 404,
    FileTooLarge: 413,
    UnsupportedType: 415,
    BadFileName: 422,
    NoSpace: 507,
}
TEXT_TYPES = {".md": "text/markdown", ".markdown": "text/markdown", ".txt": "text/plain"}
NOT_FOUND: dict[int | str, dict[str, Any]] = {
    404: {"model": ErrorResponse, "description": "No document with that id."}
}
UPLOAD_BODY: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "content": {
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": ["files"],
                    "properties": {
                        "files": {
                            "type": "array",
                            "items": {"type": "string", "format": "binary"},
                            "description": "One or more files.",
                        },
                        "folder": {
                            "type": "string",
                            "description": "A subfolder to put them in; before the files.",
                        },
                    },
                }
            }
        },
    }
}


def _error(error: DocumentError) -> ApiError:
    return ApiError(STATUS.get(type(error), 422), error.code, str(error))


@router.post(
    "",
    status_code=201,
    openapi_extra=UPLOAD_BODY,
    responses={
        413: {"model": ErrorResponse, "description": "A file, or the body, over its limit."},
        415: {"model": ErrorResponse, "description": "A type Docent cannot read."},
        507: {"model": ErrorResponse, "description": "The disk is full (`disk_full`)."},
    },
)
async def upload_documents(
    request: Request,
    documents: DocumentsDep,
    folder: Annotated[
        str | None, Query(description="A subfolder to put the files in (or the form field).")
    ] = None,
) -> DocumentList:
    """Put files into the documents folder (or a subfolder of it); they are then indexed.

    Each file streams to disk as it arrives, so a `folder` form field must come before the
    files (or be given in the query). The upload is all or nothing: if one file is refused,
    the files this request created are removed again.
    """
    body = request.stream()
    added: list[Added] = []
    try:
        content_type = request.headers.get("content-type", "")
        await _receive(content_type, body, documents, added, folder=folder)
    except (DocumentError, MultipartError) as error:
        await documents.undo(added)
        await _drain(body)  # the client is told only once it has finished sending
        if isinstance(error, MultipartError):
            raise ApiError(422, "invalid_request", str(error)) from error
        raise _error(error) from error
    except BaseException:  # the body was cut off (over its cap) or the client went away
        await documents.undo(added)
        raise
    return DocumentList(documents=[item.view for item in added])


async def _receive(
    content_type: str,
    body: AsyncIterator[bytes],
    documents: DocumentService,
    added: list[Added],
    *,
    folder: str | None,
) -> None:
    """Add every file part of the body in turn to ``added``; a ``folder`` field first."""
    parts = read_parts(content_type, body)
    try:
        async for part in parts:
            if part.filename is None:
                if part.name != "folder":
                    continue  # unknown plain fields are ignored, as forms do
                if added:
                    raise MultipartError(
                        "folder: the files came before it, so Docent could not put them in it."
                        " Send the folder field first (curl: -F folder=… before -F files=@…),"
                        " or give it in the query (?folder=…)."
                    )
                folder = (await part.text()).strip() or None
            elif part.name != "files":
                raise MultipartError(f"{part.name}: unknown file field; send files as `files`.")
            else:
                added.append(await documents.add(part.filename, part.blocks(), folder=folder))
    finally:
        await parts.aclose()
    if not added:
        raise MultipartError("files: send at least one file (multipart field `files`).")


async def _drain(body: AsyncIterator[bytes]) -> None:
    with contextlib.suppress(Exception):
        async for _ in body:
            pass


@router.get(
    "/{doc_id}/file",
    response_class=FileResponse,
    responses={**NOT_FOUND, 200: {"description": "The file, with its content type."}},
)
async def document_file(doc_id: str, documents: DocumentsDep) -> FileResponse:
    """The original file, as it is in the documents folder."""
    try:
        path = documents.file_path(doc_id)
    except DocumentError as error:
        raise _error(error) from error
    suffix = path.suffix.lower()
    media = TEXT_TYPES.get(suffix) or mimetypes.guess_type(path.name)[0]
    media = media or "application/octet-stream"
    if media.startswith("text/"):
        media += "; charset=utf-8"
    return FileResponse(
        path,
        media_type=media,
        filename=path.name,
        content_disposition_type="inline",
        # Served from Docent's own origin: whatever the file holds must not run as a page,
        # load anything from elsewhere (an HTML document's tracking pixel), nor be framed
        # by another page to show it (nosniff: the guard adds it).
        headers={"Content-Security-Policy": FILE_POLICY},
    )


@router.delete("/{doc_id}", status_code=204, response_class=Response, responses=NOT_FOUND)
async def delete_document(doc_id: str, documents: DocumentsDep) -> Response:
    """Delete the file from the folder and its passages from the index."""
    try:
        await documents.remove(doc_id)
    except DocumentError as error:
        raise _error(error) from error
    return Response(status_code=204)


@router.post("/reindex", status_code=202, responses=NOT_FOUND)
async def reindex(documents: DocumentsDep, body: ReindexRequest | None = None) -> ReindexResult:
    """Index one document again, or re-scan the whole folder (retrying failed files)."""
    try:
        queued = await documents.reindex(body.id if body else None)
    except DocumentError as error:
        raise _error(error) from error
    return ReindexResult(queued=queued)
