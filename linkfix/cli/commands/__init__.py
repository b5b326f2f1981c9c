"""Subcommands, one module each: NAME, HELP, configure(parser), run(args, config) -> exit code.

A module that sets USES_CONFIG = True gets a loaded Config (the file's keys, all of them
checked) and every config key as a flag, or only those its CONFIG_FLAGS names: `cache` and
`report` take no flag of a check's.
A module's file name is its NAME: `linkfix NAME ...` imports that module alone, so a module
imports at its top only what building its parser needs, and the rest where it is used.
"""
