"""Fixtures shared by the Python tests."""

import pytest

import symx as sx


@pytest.fixture
def fresh_graph():
    """A new default graph for the test, so that names and collections start empty."""
    sx.reset_default_graph()
    yield
    sx.reset_default_graph()
