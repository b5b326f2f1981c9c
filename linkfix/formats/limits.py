"""What extraction keeps of one file at most, so that a hostile file costs bounded memory.

A file with more links keeps the first MAX_LINKS of them, and its Document's `warnings` say so
(the report lists them with the file's other problems).
"""

MAX_LINKS = 100_000


def links_left_out(kept: int) -> str:
    return f"only the first {kept} links were kept"
