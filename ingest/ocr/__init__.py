"""OCR: reading the text of page images, offline, with models that ship in a package."""
