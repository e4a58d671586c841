"""OCR: reading the text of page images, offline, with models that ship in a package.

``types`` holds the shapes and the ``PageReader`` Protocol the loaders use; ``engine``
runs the bundled rapidocr models (imported only in the OCR lane's worker); ``layout``
puts the lines in reading order; ``script`` tells text from garbage; ``render`` draws a
PDF page for it; ``reader`` puts these together.
"""
