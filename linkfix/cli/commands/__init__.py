"""Subcommands, one module each: NAME, HELP, configure(parser), run(args, config) -> exit code.

A module that sets USES_CONFIG = True gets every config key as a flag and a loaded Config.
A module's file name is its NAME: `linkfix NAME ...` imports that module alone, so a module
imports at its top only what building its parser needs, and the rest where it is used.
"""
