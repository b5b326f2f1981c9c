"""Reading one file safely (regular files only, size-capped, binary refused, YAML bounded).

Shared below the stages: the config loader, every stage that reads a documentation file and the
fixer all read through here, so that the limits hold everywhere.
"""
