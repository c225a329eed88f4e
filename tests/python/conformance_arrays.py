"""Conformance rows of symx/arrays.hpp (added to test_conformance.py's table: see its _AREAS)."""


def add_rows(c):
    pass
