"""Fixing: decide which links to rewrite (plan) and edit the sources by span, atomically (patch)."""
