"""Colours, styles and the browser-side script every page of the window needs."""

from __future__ import annotations

from pathlib import Path

from nicegui import ui

from ui.answer.markdown import code_css
from ui.frame import shortcuts

PRIMARY = "#4f46e5"
SCRIPT = (Path(__file__).parents[1] / "static" / "docent.js").read_text(encoding="utf-8")
PAGE_SCRIPT = f"<script>{shortcuts.script()}{SCRIPT}</script>"
"""Built once: the shortcut table and the script are the same on every page."""

CSS = """
html, body { overflow-x: hidden; }
body { background: #f8fafc; }
body.body--dark { background: #0f172a; }
.docent-muted { color: #64748b; }
.body--dark .docent-muted { color: #94a3b8; }

.docent-header { background: white; color: #1e293b; }
.body--dark .docent-header { background: #0f172a; color: #e2e8f0;
  border-bottom: 1px solid #1e293b; }
/* The chat model's name: cut with an ellipsis beside its icon on a wide window. On a
   narrow one the title and the icon give it their room, and a long name takes two lines
   of smaller text instead of being cut (at 420 px "qwen2.5-7b-instruct" lost both ends). */
.docent-model { max-width: 40vw; min-width: 0; }
.docent-model .q-btn__content { flex-wrap: nowrap; min-width: 0; }
.docent-model .q-btn__content > .block { overflow: hidden; text-overflow: ellipsis;
  white-space: nowrap; min-width: 0; }
@media (max-width: 600px) {
  .docent-header .docent-title { position: absolute; width: 1px; height: 1px;
    overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
  .docent-model { max-width: none; flex: 0 1 auto; }
  .docent-model .q-btn__content > .q-icon { display: none; }
  .docent-model .q-btn__content > .block { white-space: normal; overflow-wrap: anywhere;
    font-size: 0.8rem; line-height: 1.15; text-align: left; display: -webkit-box;
    -webkit-line-clamp: 2; -webkit-box-orient: vertical; }
}

/* Messages */
.docent-messages { max-width: 52rem; margin: 0 auto; width: 100%; min-width: 0; }
.docent-bubble { background: var(--q-primary); color: white; border-radius: 1.1rem;
  padding: 0.5rem 0.9rem; max-width: min(80%, 40rem); white-space: pre-wrap;
  overflow-wrap: anywhere; }
.docent-answer-card { width: 100%; max-width: 100%; min-width: 0; border-radius: 0.9rem; }
.body--dark .docent-answer-card { background: #1e293b; }
.docent-md { overflow-wrap: anywhere; line-height: 1.55; min-width: 0; }
.docent-md p { margin: 0 0 0.6em 0; }
.docent-md > :last-child { margin-bottom: 0; }
.docent-md h1 { font-size: 1.3rem; font-weight: 650; margin: 0.8em 0 0.4em; line-height: 1.3; }
.docent-md h2 { font-size: 1.15rem; font-weight: 650; margin: 0.8em 0 0.4em; line-height: 1.3; }
.docent-md h3, .docent-md h4, .docent-md h5, .docent-md h6 {
  font-size: 1rem; font-weight: 650; margin: 0.7em 0 0.3em; line-height: 1.3; }
.docent-md > h1:first-child, .docent-md > h2:first-child, .docent-md > h3:first-child {
  margin-top: 0; }
.docent-md ul { list-style: disc; padding-left: 1.4em; margin: 0 0 0.6em; }
.docent-md ol { list-style: decimal; padding-left: 1.4em; margin: 0 0 0.6em; }
.docent-md blockquote { border-left: 3px solid #cbd5e1; padding-left: 0.8em; color: #475569; }
.docent-md a { color: var(--q-primary); text-decoration: underline; }
.body--dark .docent-md a { color: #a5b4fc; }
.docent-md :not(pre) > code { background: rgba(100,116,139,0.15); border-radius: 4px;
  padding: 0.05em 0.3em; font-size: 0.9em; }
.docent-md a.docent-cite { text-decoration: none; font-size: 0.78em; font-weight: 600;
  vertical-align: super; padding: 0 0.1em; border-radius: 4px; cursor: pointer; }
.docent-md a.docent-cite:hover { background: rgba(79,70,229,0.12); }
/* Checked sentences: found ones open their passage, the others are quietly marked and
   say why on hover. */
.docent-claim { cursor: pointer; border-radius: 3px; }
.docent-claim:hover { background: rgba(79,70,229,0.08); }
.docent-claim-partly, .docent-claim-unsupported { text-decoration: underline dotted;
  text-decoration-color: #d97706; text-underline-offset: 0.2em; position: relative; }
.docent-claim-unsupported { text-decoration-color: #ea580c; cursor: help; }
/* The passage says otherwise: a reader must not miss it. */
.docent-claim-contradicts { text-decoration: underline wavy #dc2626;
  text-decoration-thickness: 1.5px; background: rgba(220,38,38,0.08); }
.docent-check-warn { color: #b91c1c; font-weight: 600; }
.body--dark .docent-check-warn { color: #fca5a5; }
.docent-claim[data-why]:hover::after { content: attr(data-why); position: absolute;
  left: 0; bottom: calc(100% + 4px); z-index: 20; width: max-content; max-width: 22rem;
  padding: 0.25rem 0.5rem; border-radius: 4px; background: #1e293b; color: white;
  font-size: 0.78rem; line-height: 1.35; white-space: normal; pointer-events: none; }
.docent-draft { border-left: 3px solid #cbd5e1; padding-left: 0.6rem; color: #64748b;
  white-space: pre-wrap; }
.docent-code { margin: 0.5em 0 0.8em; border-radius: 8px; overflow: hidden;
  background: #f1f5f9; border: 1px solid #e2e8f0; }
.body--dark .docent-code { background: #0b1220; border-color: #334155; }
.docent-code-bar { display: flex; justify-content: space-between; align-items: center;
  font-size: 0.75rem; padding: 0.2rem 0.6rem; color: #64748b;
  border-bottom: 1px solid #e2e8f0; }
.body--dark .docent-code-bar { border-color: #334155; color: #94a3b8; }
.docent-copy-code { font-size: 0.75rem; padding: 0.05rem 0.5rem; border-radius: 4px;
  cursor: pointer; }
.docent-copy-code:hover { background: rgba(100,116,139,0.2); }
.docent-code pre { margin: 0; padding: 0.6rem 0.8rem; overflow-x: auto; font-size: 0.85rem;
  line-height: 1.45; }
.docent-table { overflow-x: auto; max-width: 100%; margin: 0.4em 0 0.8em; }
.docent-table table { border-collapse: collapse; font-size: 0.9rem; }
.docent-table th, .docent-table td { border: 1px solid #e2e8f0; padding: 0.3rem 0.6rem;
  text-align: left; vertical-align: top; min-width: 6rem; max-width: 36rem; }
.body--dark .docent-table th, .body--dark .docent-table td { border-color: #334155; }
.docent-table th { background: rgba(100,116,139,0.1); }
.docent-streaming > :last-child::after, .docent-streaming:empty::after {
  content: ""; display: inline-block; width: 0.55em; height: 1.05em; margin-left: 0.15em;
  vertical-align: text-bottom; background: currentColor; opacity: 0.7;
  animation: docent-blink 1s steps(1) infinite; }
@keyframes docent-blink { 50% { opacity: 0; } }
.docent-mention-chip .q-icon { font-size: 1em; }
.docent-mention-chip { display: inline-flex; align-items: center; gap: 0.2em;
  background: rgba(255,255,255,0.22); border-radius: 999px; padding: 0 0.5em;
  font-size: 0.9em; white-space: nowrap; max-width: 100%; overflow: hidden;
  text-overflow: ellipsis; vertical-align: bottom; }
.docent-source-chip { max-width: 100%; }
.docent-source-chip .q-chip__content { overflow: hidden; text-overflow: ellipsis;
  white-space: nowrap; display: block; }
.docent-stopped { font-size: 0.75rem; color: #b45309; }

/* Composer and the @ picker */
.docent-footer { color: #0f172a; }
.body--dark .docent-footer { color: #e2e8f0; }
.docent-footer .docent-composer { background: white; }
.body--dark .docent-footer .docent-composer { background: #1e293b; }
.docent-composer { max-width: 52rem; margin: 0 auto; width: 100%; min-width: 0; }
.docent-mention-popup { position: absolute; bottom: 100%; left: 0; right: 0;
  margin-bottom: 0.4rem; max-height: 18rem; overflow-y: auto; z-index: 10; }
.docent-mention-option { cursor: pointer; border-radius: 6px; }
.docent-mention-option.docent-active { background: rgba(79,70,229,0.14); }
.docent-jump { position: fixed; bottom: 7.5rem; left: 50%; transform: translateX(-50%);
  display: none; z-index: 5; }
body.docent-scrolled-up .docent-jump { display: inline-flex; }

/* Sidebar */
.docent-ellipsis { overflow: hidden; text-overflow: ellipsis; white-space: nowrap;
  min-width: 0; }
.body--dark .docent-banner { background: #3b2a06 !important; border-color: #a16207 !important;
  color: #fef3c7 !important; }
.docent-banner-text p { margin: 0; }
.docent-doclist { overflow-y: auto; max-height: 42vh; min-height: 3rem; }
/* A long list scrolls; its rows must not shrink to fit (a shrunk row wraps its caption
   beside the name). */
.docent-doclist > * { flex-shrink: 0; }
.docent-session.docent-current { background: rgba(79,70,229,0.12); font-weight: 600; }

/* The drop zone */
.docent-drop-overlay { position: fixed; inset: 0; z-index: 6000; display: none;
  align-items: center; justify-content: center; pointer-events: none;
  background: rgba(79,70,229,0.12); border: 3px dashed var(--q-primary); }
.docent-drop-overlay.docent-drop-active { display: flex; }
.docent-uploader { display: none; }

/* The text viewer */
/* The width it has, not its text's: a short highlighted paragraph wrapped at a few words. */
.docent-viewer-text { overflow-wrap: anywhere; font-size: 0.95rem; line-height: 1.6;
  width: min(100%, 48rem); }
.docent-viewer-plain { white-space: pre-wrap; font-family: ui-monospace, monospace;
  font-size: 0.85rem; }
.docent-passage-block { background: #fef3c7; border-left: 4px solid #f59e0b;
  padding: 0.3rem 0.7rem; margin: 0 -0.7rem 0.6em; border-radius: 4px; }
.body--dark .docent-passage-block { background: #422006; }
.docent-viewer-text mark { background: #fde68a; padding: 0.1em 0; border-radius: 3px; }
.docent-passage-block mark.docent-span { background: #fcd34d; }
.body--dark .docent-passage-block mark.docent-span { background: #a16207; color: white; }
.body--dark .docent-viewer-text mark { background: #854d0e; color: white; }
.docent-pdf { width: 100%; min-height: 0; display: flex; flex-direction: column;
  overflow: hidden; }
.docent-pdf-bar { display: flex; align-items: center; gap: 0.5rem; padding: 0.3rem 0.75rem;
  border-bottom: 1px solid #e2e8f0; font-size: 0.85rem; }
.body--dark .docent-pdf-bar { border-color: #334155; }
.docent-pdf-button { min-width: 2rem; padding: 0.1rem 0.5rem; border-radius: 4px;
  font-size: 1.1rem; line-height: 1.2; cursor: pointer; }
.docent-pdf-button:hover:not(:disabled) { background: rgba(100,116,139,0.2); }
.docent-pdf-button:disabled { opacity: 0.35; cursor: default; }
.docent-pdf-area { flex: 1 1 auto; overflow: auto; padding: 1rem; background: #e2e8f0; }
.body--dark .docent-pdf-area { background: #020617; }
.docent-pdf-page { position: relative; margin: 0 auto; background: white;
  box-shadow: 0 1px 4px rgba(15,23,42,0.25); --user-unit: 1;
  --total-scale-factor: calc(var(--scale-factor) * var(--user-unit));
  --scale-round-x: 1px; --scale-round-y: 1px; }
.docent-pdf-page canvas { display: block; }
.docent-pdf-page .textLayer .highlight.docent-pdf-mark,
.docent-picture .textLayer .highlight.docent-pdf-mark {
  --highlight-bg-color: rgba(245,158,11,0.45); }
.docent-picture { position: relative; margin: 0 auto; }
.docent-picture img { display: block; width: 100%; height: auto; }
.docent-pdf-note { padding: 1rem; color: #b91c1c; }

/* Any width from 360 px: a card's children stretch to the card (NiceGUI's cards and
   columns align children to the start, which sizes them to their content, so one long
   table or code line made the whole answer as wide as itself); what cannot wrap, tables
   and code, scrolls inside its own box. */
.docent-messages > *, .docent-answer-card > .docent-md { align-self: stretch; max-width: 100%;
  min-width: 0; }
.docent-md { max-width: 100%; }
.docent-md > *, .docent-code, .docent-code pre, .docent-table { max-width: 100%; }
.docent-code pre { white-space: pre; }
.docent-md img { max-width: 100%; height: auto; }

/* Focus that shows, in both themes: Quasar only tints a focused button a little. */
.q-btn:focus-visible, .q-item:focus-visible, .q-chip:focus-visible, a:focus-visible,
[tabindex]:focus-visible, button:focus-visible {
  outline: 2px solid #4f46e5 !important; outline-offset: 2px; }
.body--dark .q-btn:focus-visible, .body--dark .q-item:focus-visible,
.body--dark .q-chip:focus-visible, .body--dark a:focus-visible,
.body--dark [tabindex]:focus-visible, .body--dark button:focus-visible {
  outline-color: #a5b4fc !important; }
.docent-bubble :focus-visible { outline-color: white !important; }
/* Inside a menu or list that scrolls, an outline outside the item would be clipped. */
.q-item:focus-visible, .docent-table:focus-visible, .docent-code pre:focus-visible {
  outline-offset: -2px; }
/* Contrast of at least 4.5:1 (axe): the primary colour is too dark on a dark background,
   a white chip on the bubble too faint, grey on the code bar's grey too light. Quasar's
   .text-primary is !important in a cascade layer, which only a rule that is !important
   in an earlier layer beats (NiceGUI's first layer is "theme"). */
@layer theme {
  .body--dark .text-primary, .body--dark .docent-banner .q-btn { color: #a5b4fc !important; }
}
.docent-quiet { color: #475569; }
.body--dark .docent-quiet { color: #94a3b8; }
.docent-mention-chip { background: rgba(15,23,42,0.28); }
.docent-code-bar { color: #475569; }
header h1 { margin: 0; line-height: 1.5; }
.docent-shortcuts { display: grid; grid-template-columns: max-content 1fr; gap: 0.3rem 1rem;
  margin: 0; }
.docent-shortcuts dd { margin: 0; }
.docent-shortcuts kbd { font-family: ui-monospace, monospace; font-size: 0.8rem;
  padding: 0.05rem 0.35rem; border: 1px solid #cbd5e1; border-radius: 4px; }
.body--dark .docent-shortcuts kbd { border-color: #475569; }

@media (max-width: 600px) {
  .docent-bubble { max-width: 88%; }
  .docent-hide-narrow { display: none !important; }
}
"""

STATUS_ICONS = {
    "queued": ("schedule", "grey"),
    "indexing": ("autorenew", "primary"),
    "ready": ("check_circle", "positive"),
    "error": ("error", "negative"),
}


def apply() -> ui.dark_mode:
    """Colours, dark mode (following the system), styles and script for the current page."""
    ui.colors(primary=PRIMARY)
    # Items in a menu are its menu items (Quasar's items call themselves list items, which
    # a screen reader then looks for a list around).
    ui.menu_item.default_props("role=menuitem")
    dark = ui.dark_mode(None)  # None: follow the operating system's setting
    ui.add_css(CSS + code_css())
    # The shortcut table rides in the page's own script: sent over the socket instead, it
    # landed after the page was drawn, and a key pressed in between did nothing.
    ui.add_body_html(PAGE_SCRIPT)
    return dark


THEMES: dict[str, tuple[bool | None, str, str]] = {
    "auto": (None, "brightness_auto", "Theme: as the system (click for light)"),
    "light": (False, "light_mode", "Theme: light (click for dark)"),
    "dark": (True, "dark_mode", "Theme: dark (click to follow the system)"),
}


class ThemeToggle:
    """The header's theme button: system, light, dark in turn; this browser remembers it."""

    def __init__(self, dark: ui.dark_mode) -> None:
        self.dark = dark
        self.choice = "auto"
        self.button = ui.button(icon="brightness_auto", on_click=self.next).props("flat round")
        self.button.props["aria-label"] = THEMES["auto"][2]
        self.button.mark("theme")
        with self.button:
            self.tip = ui.tooltip(THEMES["auto"][2])
        ui.on("docent_theme", lambda e: self.choose(str(e.args), remember=False))
        ui.run_javascript(
            "emitEvent('docent_theme', localStorage.getItem('docent-theme') || 'auto')"
        )

    def next(self) -> None:
        names = list(THEMES)
        self.choose(names[(names.index(self.choice) + 1) % len(names)], remember=True)

    def choose(self, choice: str, *, remember: bool) -> None:
        if choice not in THEMES:
            return
        self.choice = choice
        value, icon, tip = THEMES[choice]
        self.dark.set_value(value)
        self.button.props(f"icon={icon}")
        self.button.props["aria-label"] = tip
        self.tip.set_text(tip)
        if remember:
            ui.run_javascript(f"localStorage.setItem('docent-theme', '{choice}')")
