"""The library in the drawer: each file's status, adding files, and opening one at a cited place."""
