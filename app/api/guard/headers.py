"""The headers every response carries: who may frame it, what a page may load, no sniffing.

``PAGE_POLICY`` keeps every load, connection and form on Docent's own origin, so text the
model or a document wrote can't send anything off the machine even if it gets into the page
as HTML. Its relaxations are the ones NiceGUI's page needs, measured in Chromium
(tests/browser/test_security_browser.py; each one below was taken out in turn):

- ``script-src 'unsafe-inline'``: NiceGUI's page starts its Vue app from inline scripts
  (six of them, docent.js among them); without it the window stays blank.
- ``script-src 'unsafe-eval'``: Vue compiles its templates in the browser, and
  ``run_javascript`` and ``js_handler`` code runs through ``eval``; else a blank window too.
- ``style-src 'unsafe-inline'``: Quasar and Vue set ``style`` attributes (over 150 in the
  views measured) and NiceGUI adds the window's CSS as inline ``<style>`` elements.
- ``img-src data:``: the window's icon is an SVG data URL; ``blob:`` stays for pictures a
  page makes itself. Neither can reach another server. The window frames nothing (its PDF
  viewer draws pages itself), so ``frame-src`` is 'none'.
"""

from __future__ import annotations

CSP = b"content-security-policy"
FRAME_OPTIONS = b"x-frame-options"

PAGE_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self' 'unsafe-inline' 'unsafe-eval'",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data: blob:",
        "connect-src 'self'",
        "frame-src 'none'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)

ALWAYS = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
]
SECURITY_HEADERS = [(CSP, PAGE_POLICY.encode()), (FRAME_OPTIONS, b"DENY"), *ALWAYS]
"""What a response that states no policy of its own gets."""


def directives(policy: bytes) -> dict[str, str]:
    """One CSP header value by directive, e.g. {'sandbox': '', 'frame-ancestors': "'none'"}."""
    parts = (part.strip().split(None, 1) for part in policy.decode("latin-1").split(";"))
    return {words[0].lower(): (words[1:] or [""])[0] for words in parts if words}


def secured(headers: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    """``headers`` with ours added; the response's own CSP and framing rules are merged in,
    never dropped: a CSP without ``frame-ancestors`` gets ``frame-ancestors 'none'``."""
    names = {name.lower() for name, _ in headers}
    added = [h for h in ALWAYS if h[0] not in names]
    if CSP not in names:
        frame_options = [] if FRAME_OPTIONS in names else [(FRAME_OPTIONS, b"DENY")]
        return [*headers, (CSP, PAGE_POLICY.encode()), *frame_options, *added]
    out = list(headers)
    policies = [i for i, (name, _) in enumerate(out) if name.lower() == CSP]
    framing = [directives(out[i][1]).get("frame-ancestors") for i in policies]
    if not any(rule is not None for rule in framing):
        name, value = out[policies[0]]
        out[policies[0]] = (name, value.rstrip(b"; ") + b"; frame-ancestors 'none'")
    # X-Frame-Options for browsers that predate frame-ancestors, unless it would contradict
    # a response that lets some page frame it.
    if FRAME_OPTIONS not in names and all(rule in (None, "'none'") for rule in framing):
        added.append((FRAME_OPTIONS, b"DENY"))
    return [*out, *added]
