"""Subcommands, one module each: NAME, HELP, configure(parser), run(args, config) -> exit code.

A module that sets USES_CONFIG = True gets every config key as a flag and a loaded Config.
"""
