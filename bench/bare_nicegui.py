"""The floor for start-up: a bare NiceGUI page, started as `run.py` starts the window.

`python bench/bare_nicegui.py PORT` serves one label at / until it is stopped; the
start-up bench times it beside Docent, in the same run.
"""

import sys

from nicegui import ui


@ui.page("/")
def page() -> None:
    ui.label("A bare NiceGUI page")


if __name__ in {"__main__", "__mp_main__"}:
    ui.run(
        port=int(sys.argv[1]),
        show=False,
        reload=False,
        show_welcome_message=False,
        title="bare",
    )
