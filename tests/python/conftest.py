"""Fixtures shared by the Python tests; plain helpers (paths, child processes, IDX files) are in
helpers.py, imported by the tests that use them."""

import pytest

import symx as sx


@pytest.fixture
def fresh_graph():
    """A new default graph for the test, so that names and collections start empty. A test module
    that wants it for every test says `pytestmark = pytest.mark.usefixtures("fresh_graph")`."""
    sx.reset_default_graph()
    yield
    sx.reset_default_graph()
