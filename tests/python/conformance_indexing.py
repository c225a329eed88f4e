"""Conformance rows of symx/indexing.hpp (added to test_conformance.py's table: see its _AREAS)."""


def add_rows(c):
    pass
