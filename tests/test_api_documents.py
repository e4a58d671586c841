"""Documents over HTTP: upload, the original file, delete, reindex, and no way out of the folder."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from tests.api_app import anonymous, api_app, error_code
from tests.running import RunningApp, eventually

MANUAL = ["The kettle must be descaled every month.", "The warranty lasts two years."]


@pytest.fixture
async def app(tmp_path: Path) -> AsyncIterator[RunningApp]:
    async with api_app(tmp_path, pdfs={"manual.pdf": MANUAL}, max_upload_mb=1) as running:
        yield running


async def documents(app: RunningApp) -> dict[str, dict]:
    listed = (await app.client.get("/api/documents")).json()["documents"]
    return {d["path"]: d for d in listed}


async def ready(app: RunningApp, path: str) -> None:
    async def check() -> bool:
        return (await documents(app)).get(path, {}).get("status") == "ready"

    await eventually(check, timeout=30, what=f"{path} ready")


def files_outside(root: Path, docs: Path) -> set[Path]:
    """Every file under ``root`` that is not in the documents folder."""
    return {p for p in root.rglob("*") if p.is_file() and not p.is_relative_to(docs)}


async def test_upload_several_files_into_a_subfolder(app: RunningApp) -> None:
    response = await app.client.post(
        "/api/documents",
        files=[
            ("files", ("pancakes.md", b"# Pancakes\n\nTwo eggs and a pinch of salt.\n")),
            ("files", ("bread.txt", b"Bread needs flour, water, salt and yeast.\n")),
        ],
        data={"folder": "recipes"},
    )
    assert response.status_code == 201, response.text
    added = response.json()["documents"]
    assert [d["path"] for d in added] == ["recipes/pancakes.md", "recipes/bread.txt"]
    docs = app.container.settings.paths.docs_dir
    assert (docs / "recipes" / "pancakes.md").read_bytes().startswith(b"# Pancakes")
    assert not [p for p in docs.rglob("*") if p.name.startswith(".docent-upload")]
    await ready(app, "recipes/pancakes.md")
    await ready(app, "recipes/bread.txt")
    found = (await app.client.post("/api/search", json={"query": "eggs pinch salt"})).json()
    assert found["results"][0]["path"] == "recipes/pancakes.md"


async def test_the_folder_may_be_given_in_the_query(app: RunningApp) -> None:
    response = await app.client.post(
        "/api/documents?folder=letters",
        files={"files": ("bank.md", b"# Bank\n\nThe account moved to the new branch.\n")},
    )
    assert response.status_code == 201, response.text
    assert response.json()["documents"][0]["path"] == "letters/bank.md"
    assert (app.container.settings.paths.docs_dir / "letters" / "bank.md").is_file()


async def test_upload_of_an_unsupported_type_gets_415_and_writes_nothing(
    app: RunningApp,
) -> None:
    before = sorted(app.container.settings.paths.docs_dir.rglob("*"))
    response = await app.client.post(
        "/api/documents",
        files=[("files", ("fine.md", b"# Fine\n")), ("files", ("tool.exe", b"MZ\x90\x00"))],
    )
    assert response.status_code == 415 and error_code(response) == "unsupported_type"
    assert "tool.exe" in response.json()["error"]["message"]
    assert sorted(app.container.settings.paths.docs_dir.rglob("*")) == before


async def test_upload_over_the_size_limit_gets_413_and_leaves_nothing(app: RunningApp) -> None:
    before = sorted(app.container.settings.paths.docs_dir.rglob("*"))
    big = b"word " * (1024 * 1024 // 5 + 10)  # just over 1 MB, the limit in this test
    response = await app.client.post("/api/documents", files=[("files", ("big.txt", big))])
    assert response.status_code == 413 and error_code(response) == "file_too_large"
    assert "1 MB" in response.json()["error"]["message"]
    assert sorted(app.container.settings.paths.docs_dir.rglob("*")) == before


async def test_an_upload_streams_to_disk_before_the_body_ends(app: RunningApp) -> None:
    docs = app.container.settings.paths.docs_dir
    head = b"# Log\n\n" + b"The boiler was serviced in March. " * 20_000  # 680 kB, under the cap
    opening = b'--b\r\nContent-Disposition: form-data; name="files"; filename="log.md"\r\n\r\n'

    def parts() -> list[Path]:
        return [p for p in docs.iterdir() if p.name.startswith(".docent-upload")]

    async def body() -> AsyncIterator[bytes]:
        yield opening + head
        # The route has written what came so far to a temporary file in the folder
        # while the rest of the body is still to come.
        await eventually(lambda: any(p.stat().st_size > 0 for p in parts()), what="a .part")
        yield b"\n\nThe end.\r\n--b--\r\n"

    response = await app.client.post(
        "/api/documents",
        content=body(),
        headers={"Content-Type": "multipart/form-data; boundary=b"},
    )
    assert response.status_code == 201, response.text
    assert (docs / "log.md").read_bytes() == head + b"\n\nThe end."
    assert parts() == []


async def test_a_refused_file_undoes_the_upload_but_keeps_what_was_there(
    app: RunningApp,
) -> None:
    docs = app.container.settings.paths.docs_dir
    notes = (docs / "notes.md").read_bytes()
    response = await app.client.post(
        "/api/documents",
        files=[
            ("files", ("notes.md", notes)),  # the same file again: it stays
            ("files", ("fresh.md", b"# Fresh\n")),  # new: removed again
            ("files", ("big.txt", b"word " * (1024 * 1024 // 5 + 10))),  # over 1 MB
        ],
    )
    assert response.status_code == 413 and error_code(response) == "file_too_large"
    assert (docs / "notes.md").read_bytes() == notes
    assert not (docs / "fresh.md").exists() and not (docs / "big.txt").exists()
    assert not [p for p in docs.rglob("*") if p.name.startswith(".docent-upload")]

    async def settled() -> bool:
        listed = await documents(app)
        return "fresh.md" not in listed and listed.get("notes.md", {}).get("status") == "ready"

    await eventually(settled, what="fresh.md gone and notes.md still ready")


async def test_a_body_over_the_upload_cap_gets_413(app: RunningApp) -> None:
    from app.api.routes.uploads import upload_body_cap

    docs = app.container.settings.paths.docs_dir
    before = sorted(docs.rglob("*"))
    cap = upload_body_cap(app.container.settings)
    # Only the head is sent: the length it declares is refused before any body is read.
    host, port = app.url.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    writer.write(
        f"POST /api/documents HTTP/1.1\r\nHost: {host}:{port}\r\n"
        f"Authorization: Bearer {app.container.token}\r\n"
        "Content-Type: multipart/form-data; boundary=b\r\n"
        f"Content-Length: {cap + 1}\r\n\r\n".encode()
    )
    await writer.drain()
    declared = await reader.read()
    writer.close()
    assert declared.startswith(b"HTTP/1.1 413") and b"body_too_large" in declared
    assert b"max_upload_mb" in declared  # the setting that raises this route's cap

    async def endless() -> AsyncIterator[bytes]:
        # Many small files, each under the per-file cap, past the total cap.
        for n in range(cap // (512 * 1024) + 2):
            yield (
                (
                    f'--b\r\nContent-Disposition: form-data; name="files"; filename="f{n}.txt"'
                    "\r\n\r\n"
                ).encode()
                + b"a" * (512 * 1024)
                + b"\r\n"
            )

    try:
        streamed = await app.client.post(
            "/api/documents",
            content=endless(),
            headers={"Content-Type": "multipart/form-data; boundary=b"},
        )
        assert streamed.status_code == 413 and error_code(streamed) == "body_too_large"
    except httpx.TransportError:
        pass  # the server hung up on the rest of the body; what matters is below

    async def undone() -> bool:
        return sorted(docs.rglob("*")) == before

    await eventually(undone, what="the partial upload to be removed")


@pytest.mark.parametrize(
    ("body", "field"),
    [
        (b"not multipart at all", "multipart/form-data"),
        (b'--b\r\nContent-Disposition: form-data; name="files"; filename="a.md"\r\n\r\n#', "ended"),
        (
            b'--b\r\nContent-Disposition: form-data; name="files"; filename="a.md"\r\n\r\n# A'
            b'\r\n--b\r\nContent-Disposition: form-data; name="folder"\r\n\r\nx\r\n--b--\r\n',
            "folder",
        ),
    ],
)
async def test_a_malformed_upload_gets_422_and_leaves_nothing(
    app: RunningApp, body: bytes, field: str
) -> None:
    docs = app.container.settings.paths.docs_dir
    before = sorted(docs.rglob("*"))
    kind = "text/plain" if field == "multipart/form-data" else "multipart/form-data; boundary=b"
    response = await app.client.post("/api/documents", content=body, headers={"Content-Type": kind})
    assert response.status_code == 422 and error_code(response) == "invalid_request"
    assert field in response.json()["error"]["message"]
    assert sorted(docs.rglob("*")) == before


async def test_upload_without_files_gets_422_naming_the_field(app: RunningApp) -> None:
    response = await app.client.post("/api/documents", data={"folder": "x"})
    assert response.status_code == 422 and error_code(response) == "invalid_request"
    assert "files" in response.json()["error"]["message"]


async def test_the_original_file_comes_with_its_content_type(app: RunningApp) -> None:
    listed = await documents(app)
    pdf = await app.client.get(f"/api/documents/{listed['manual.pdf']['id']}/file")
    assert pdf.status_code == 200
    assert pdf.headers["content-type"] == "application/pdf"
    assert pdf.content == (app.container.settings.paths.docs_dir / "manual.pdf").read_bytes()
    # Sandboxed, and no other page may frame it (the guard merges, never drops, framing).
    (policy,) = pdf.headers.get_list("content-security-policy")
    assert policy.startswith("sandbox; default-src 'none';")
    assert policy.endswith("frame-ancestors 'none'")
    assert pdf.headers["x-frame-options"] == "DENY"
    notes = await app.client.get(f"/api/documents/{listed['notes.md']['id']}/file")
    assert notes.headers["content-type"] == "text/markdown; charset=utf-8"
    assert "blue flowerpot" in notes.text
    missing = await app.client.get("/api/documents/nope/file")
    assert missing.status_code == 404 and error_code(missing) == "document_not_found"


async def test_delete_removes_the_file_and_its_passages(app: RunningApp) -> None:
    doc_id = (await documents(app))["notes.md"]["id"]
    response = await app.client.delete(f"/api/documents/{doc_id}")
    assert response.status_code == 204
    assert not (app.container.settings.paths.docs_dir / "notes.md").exists()

    async def gone() -> bool:
        return "notes.md" not in await documents(app)

    await eventually(gone, what="notes.md to leave the list")
    found = (await app.client.post("/api/search", json={"query": "spare key flowerpot"})).json()
    assert all(r["path"] != "notes.md" for r in found["results"])
    again = await app.client.delete(f"/api/documents/{doc_id}")
    assert again.status_code == 404 and error_code(again) == "document_not_found"


async def test_reindex_one_or_all(app: RunningApp) -> None:
    doc_id = (await documents(app))["manual.pdf"]["id"]
    one = await app.client.post("/api/documents/reindex", json={"id": doc_id})
    assert one.status_code == 202 and one.json() == {"queued": 1}
    await ready(app, "manual.pdf")
    every = await app.client.post("/api/documents/reindex")
    assert every.status_code == 202 and every.json()["queued"] >= 0
    unknown = await app.client.post("/api/documents/reindex", json={"id": "nope"})
    assert unknown.status_code == 404 and error_code(unknown) == "document_not_found"
    bad = await app.client.post("/api/documents/reindex", json={"id": 5})
    assert bad.status_code == 422 and "id" in bad.json()["error"]["message"]


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("POST", "/api/documents"),
        ("GET", "/api/documents/x/file"),
        ("DELETE", "/api/documents/x"),
        ("POST", "/api/documents/reindex"),
    ],
)
async def test_document_routes_need_the_token_and_our_host(
    app: RunningApp, method: str, path: str
) -> None:
    before = sorted(app.container.settings.paths.docs_dir.rglob("*"))
    # The body in one write: a refusal hangs up on a body still arriving.
    body, kind = multipart("x.md") if method == "POST" else (b"", "text/plain")
    sent = {"content": body, "headers": {"Content-Type": kind}}
    async with anonymous(app) as client:
        refused = await client.request(method, path, **sent)
    assert refused.status_code == 401 and error_code(refused) == "unauthorized"
    for header, code in (("Host", "forbidden_host"), ("Origin", "forbidden_origin")):
        value = "evil.test" if header == "Host" else "http://evil.test"
        foreign = await app.client.request(
            method, path, content=body, headers={"Content-Type": kind, header: value}
        )
        assert foreign.status_code == 403 and error_code(foreign) == code
    assert sorted(app.container.settings.paths.docs_dir.rglob("*")) == before


# -- traversal: nothing outside the documents folder is read or written ------------------

HOSTILE_NAMES = [
    "../../etc/passwd",
    "../../etc/passwd.md",
    "..\\x",
    "..\\x.md",
    "/tmp/docent-absolute.md",
    "a/../../b.md",
    "nul\x00byte.md",
    "..",
    "CON.md",
    "x" * 300 + ".md",
]


def multipart(name: str, folder: str | None = None) -> tuple[bytes, str]:
    """A multipart body with the file name exactly as given (httpx would clean it)."""
    boundary = "docentboundary"
    parts = []
    if folder is not None:
        parts.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="folder"\r\n\r\n{folder}\r\n'
        )
    parts.append(
        f'--{boundary}\r\nContent-Disposition: form-data; name="files"; filename="{name}"\r\n'
        "Content-Type: text/markdown\r\n\r\n# Planted\r\n"
    )
    body = "".join(parts).encode("utf-8", "surrogateescape") + f"--{boundary}--\r\n".encode()
    return body, f"multipart/form-data; boundary={boundary}"


@pytest.mark.parametrize("name", HOSTILE_NAMES)
async def test_hostile_upload_names_write_nothing_outside(
    app: RunningApp, tmp_path: Path, name: str
) -> None:
    docs = app.container.settings.paths.docs_dir
    outside_before = files_outside(tmp_path, docs)
    body, kind = multipart(name)
    response = await app.client.post("/api/documents", content=body, headers={"Content-Type": kind})
    assert response.status_code in (415, 422), response.text
    assert files_outside(tmp_path, docs) == outside_before
    assert not Path("/tmp/docent-absolute.md").exists()
    assert not (docs / "planted.md").exists() and not list(docs.rglob("*lanted*"))


@pytest.mark.parametrize("folder", ["../../outside", "/tmp/docent-abs", "a/../../b", "..\\..\\x"])
async def test_hostile_upload_folders_write_nothing_outside(
    app: RunningApp, tmp_path: Path, folder: str
) -> None:
    docs = app.container.settings.paths.docs_dir
    outside_before = files_outside(tmp_path, docs)
    body, kind = multipart("planted.md", folder)
    response = await app.client.post("/api/documents", content=body, headers={"Content-Type": kind})
    assert files_outside(tmp_path, docs) == outside_before
    assert not Path("/tmp/docent-abs").exists()
    if response.status_code == 201:
        (entry,) = response.json()["documents"]
        assert (docs / entry["path"]).resolve().is_relative_to(docs.resolve())
    else:
        assert response.status_code == 422 and error_code(response) == "bad_file_name"


@pytest.mark.parametrize(
    "doc_id",
    [
        "../../etc/passwd",
        "..%2F..%2Fetc%2Fpasswd",
        "..%2Fsecret.md",
        "..\\..\\x",
        "..%5Csecret.md",
        "%2Fetc%2Fpasswd",
        "a%2F..%2F..%2Fsecret.md",
        "a%00b",
        "..",
    ],
)
async def test_traversal_ids_reach_nothing(app: RunningApp, tmp_path: Path, doc_id: str) -> None:
    secret = tmp_path / "data" / "secret.md"  # beside the documents folder
    secret.write_text("# Secret\n\nThe vault code is 7391.\n", encoding="utf-8")
    before = sorted(app.container.settings.paths.docs_dir.rglob("*"))
    for method, path in (
        ("GET", f"/api/documents/{doc_id}/file"),
        ("DELETE", f"/api/documents/{doc_id}"),
        ("POST", "/api/documents/reindex"),
    ):
        body = {"id": doc_id.replace("%2F", "/")} if method == "POST" else None
        response = await app.client.request(method, path, json=body)
        assert response.status_code in (404, 405, 422), (method, path, response.status_code)
        assert b"root:" not in response.content and b"7391" not in response.content
    assert sorted(app.container.settings.paths.docs_dir.rglob("*")) == before
    assert secret.read_text(encoding="utf-8").endswith("7391.\n")
    assert Path("/etc/passwd").exists()


async def test_uploads_never_follow_a_link_out_of_the_folder(
    app: RunningApp, tmp_path: Path
) -> None:
    docs = app.container.settings.paths.docs_dir
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(outside, docs / "away")  # a subfolder that is a link out
    target = outside / "target.md"
    target.write_text("# Mine\n", encoding="utf-8")
    os.symlink(target, docs / "taken.md")  # a file name that is a link out
    into_link = await app.client.post(
        "/api/documents", files={"files": ("x.md", b"# X\n")}, data={"folder": "away"}
    )
    assert into_link.status_code == 422 and error_code(into_link) == "bad_file_name"
    over_link = await app.client.post("/api/documents", files={"files": ("taken.md", b"# New\n")})
    assert over_link.status_code == 201, over_link.text
    assert over_link.json()["documents"][0]["path"] == "taken (2).md"
    assert sorted(p.name for p in outside.iterdir()) == ["target.md"]
    assert target.read_text(encoding="utf-8") == "# Mine\n"


async def test_a_symlink_out_of_the_folder_is_neither_served_nor_followed(
    tmp_path: Path,
) -> None:
    secret = tmp_path / "secret.md"
    secret.write_text("# Secret\n\nThe vault code is 7391.\n", encoding="utf-8")
    async with api_app(tmp_path) as app:
        docs = app.container.settings.paths.docs_dir
        os.symlink(secret, docs / "link.md")
        await app.client.post("/api/documents/reindex")

        async def settled() -> bool:
            return (await documents(app)).get("link.md", {}).get("status") == "error"

        await eventually(settled, timeout=20, what="the link to be refused")
        link = (await documents(app))["link.md"]
        assert "outside" in link["error"]
        served = await app.client.get(f"/api/documents/{link['id']}/file")
        assert served.status_code == 404 and error_code(served) == "document_not_found"
        assert b"7391" not in served.content
        removed = await app.client.delete(f"/api/documents/{link['id']}")
        assert removed.status_code == 204
        assert not os.path.lexists(docs / "link.md")  # the link went, not what it points to
        found = (await app.client.post("/api/search", json={"query": "vault code"})).json()
        assert all("7391" not in r["text"] for r in found["results"])
        assert secret.read_text(encoding="utf-8").endswith("7391.\n")  # the target is untouched


async def test_response_for_a_stranger_is_the_same_for_any_id(app: RunningApp) -> None:
    async with httpx.AsyncClient(base_url=app.url) as client:
        real = (await documents(app))["notes.md"]["id"]
        a = await client.get(f"/api/documents/{real}/file")
        b = await client.get("/api/documents/nope/file")
    assert a.status_code == b.status_code == 401 and a.json() == b.json()


# -- what an upload may delete, and the names it refuses --------------------------------


async def test_undo_keeps_a_same_bytes_file_the_watcher_had_not_seen(tmp_path: Path) -> None:
    async with api_app(tmp_path, watch=False, max_upload_mb=1) as app:
        docs = app.container.settings.paths.docs_dir
        saved = b"# Budget\n\nThe roof repair is booked for June.\n"
        (docs / "budget.md").write_bytes(saved)  # just saved by an editor: not indexed yet
        response = await app.client.post(
            "/api/documents",
            files=[
                ("files", ("budget.md", saved)),
                ("files", ("big.txt", b"word " * (1024 * 1024 // 5 + 10))),
            ],
        )
        assert response.status_code == 413 and error_code(response) == "file_too_large"
        assert (docs / "budget.md").read_bytes() == saved


async def test_an_upload_over_its_cap_names_the_upload_setting(app: RunningApp) -> None:
    big = b"word " * (1024 * 1024 // 5 + 10)
    response = await app.client.post("/api/documents", files=[("files", ("big.txt", big))])
    assert response.status_code == 413
    message = response.json()["error"]["message"]
    assert "DOCENT_MAX_UPLOAD_MB" in message and "DOCENT_MAX_FILE_MB" not in message


@pytest.mark.parametrize(
    ("name", "character"),
    [
        ("invoice\u202efdp.md", "U+202E"),
        ("invoice\u2066.md", "U+2066"),
        ("re\u200bport.md", "U+200B"),
        ("\ufeffnotes.md", "U+FEFF"),
    ],
)
async def test_names_that_disguise_themselves_are_refused(
    app: RunningApp, name: str, character: str
) -> None:
    body, kind = multipart(name)
    response = await app.client.post("/api/documents", content=body, headers={"Content-Type": kind})
    assert response.status_code == 422 and error_code(response) == "bad_file_name"
    assert character in response.json()["error"]["message"]
    assert sorted(p.name for p in app.container.settings.paths.docs_dir.iterdir()) == [
        "manual.pdf",
        "notes.md",
    ]


@pytest.mark.parametrize("folder", ["../..", "..", "a/../b", " .. /x"])
async def test_a_folder_that_climbs_is_refused_as_leading_outside(
    app: RunningApp, folder: str
) -> None:
    response = await app.client.post(
        "/api/documents", files={"files": ("x.md", b"# X\n")}, data={"folder": folder}
    )
    assert response.status_code == 422 and error_code(response) == "bad_file_name"
    message = response.json()["error"]["message"]
    assert "outside the documents folder" in message and "empty" not in message
