"""SymJAX's graph API: Graph as a context manager, current_graph, get_variables / get_placeholders /
get_ops with SymJAX's patterns, Graph.roots / ancestors / ops, Tensor.scope / initializer / clone /
reset / variables and placeholder_like. The first two tests are SymJAX's examples/graph.py and
examples/graph_accessing.py, translated."""

import numpy as np
import pytest

import symx as sx

pytestmark = pytest.mark.usefixtures("fresh_graph")


def test_symjax_examples_graph(tmp_path):
    g = sx.Graph("model1")
    with g:
        learning_rate = sx.variable(np.ones(1, np.float32))
        with sx.Graph("layer1"):
            W1 = sx.variable(np.zeros(1, np.float32), name="W")
            b1 = sx.variable(np.zeros(1, np.float32), name="b")
        with sx.Graph("layer2"):
            W2 = sx.variable(np.zeros(1, np.float32), name="W")
            b2 = sx.variable(np.zeros(1, np.float32), name="b")
    assert (W1.name, W2.name, learning_rate.name) == ("model1/layer1/W", "model1/layer2/W", "model1/variable")
    assert W1.scope == "/model1/layer1/" and learning_rate.scope == "/model1/"

    loss = (W1 + b1 + W2 + b2) * learning_rate
    train = sx.function([], loss, updates={W1: W1 + 1, b1: b1 + 2, W2: W2 + 2, b2: b2 + 3})
    assert [train()[0] for _ in range(4)] == [0, 8, 16, 24]

    g.reset()  # g holds every variable, the nested graphs' too
    assert [train()[0] for _ in range(2)] == [0, 8]
    sx.reset_variables(sx.get_variables("*"))
    sx.reset_variables(sx.get_variables("*layer2*"))
    assert [train()[0] for _ in range(2)] == [0, 8]

    sx.save_variables(str(tmp_path / "model1_saved"), g.variables())
    sx.save_variables(str(tmp_path / "layer1_saved"), sx.get_variables("*layer1*"))
    sx.reset_variables(sx.get_variables("*"))
    sx.load_variables(str(tmp_path / "model1_saved"), sx.get_variables("*"))
    sx.load_variables(str(tmp_path / "layer1_saved"), sx.get_variables("*layer1*"))
    assert [train()[0] for _ in range(2)] == [16, 24]


def test_symjax_examples_graph_accessing():
    value1 = sx.variable(np.ones(1, np.float32))
    value2 = sx.variable(np.zeros(1, np.float32))
    g = sx.Graph("special")
    with g:
        value3 = sx.variable(np.zeros(1, np.float32))
        value4 = sx.variable(np.zeros(1, np.float32))
        result = value3 + value4
        h = sx.Graph("inversion")
        with h:
            value5 = sx.variable(np.zeros(1, np.float32))
            value6 = sx.variable(np.zeros(1, np.float32))
            value7 = sx.variable(np.zeros(1, np.float32), name="w")

    assert g.variables() == [value3, value4, value5, value6, value7]
    assert h.variables() == [value5, value6, value7]
    assert value7.scope == "/special/inversion/" and value3.scope == "/special/"
    assert h.variable("w") == value7
    assert sx.get_variables("/special/inversion/w") == [value7]
    assert sx.get_variables("*/w") == [value7]
    assert sx.get_variables("/special/*") == [value3, value4, value5, value6, value7]
    assert sx.get_variables("*", scope="/special/inversion") == [value5, value6, value7]
    assert sx.get_variables() == [value1, value2, value3, value4, value5, value6, value7]
    adds = sx.get_ops("*add")
    assert adds == [result] and result.scope == "/special/"
    assert sx.get_ops("add", scope="/special/") == [result]
    assert sx.get_ops("*add", scope="/other/") == []


def test_graph_is_a_fresh_default_inside_with_and_restored_after():
    root = sx.current_graph()
    x = sx.placeholder((2,), name="x")
    outer = sx.variable(np.zeros(2, np.float32), name="w")
    with sx.Graph() as g:
        assert sx.current_graph() is g and sx.current_graph() is not root
        assert sx.variables() == [] and sx.placeholders() == []
        inner = sx.variable(np.ones(2, np.float32), name="w")
        y = sx.placeholder((2,), name="y")
        # Names stay unique across the graph and the graphs around it (their collections list it too).
        assert inner.name == "w_1" and sx.variables() == [inner] and sx.get_placeholders() == [y]
        z = x * inner + y  # mixing the enclosing graph's tensors
    assert sx.current_graph() is root
    # The enclosing graph lists what the inner one made; names stay unique across both.
    assert sx.variables() == [outer, inner] and outer.name == "w"
    assert sx.get_placeholders("y") == [y]
    np.testing.assert_array_equal(sx.function([x, y], z)(np.ones(2, np.float32), np.ones(2, np.float32)), [2, 2])
    # Ids stay unique among the graphs a function mixes.
    assert len({t.id for t in sx.topological_order(z)}) == len(sx.topological_order(z))


def test_graph_roots_ancestors_ops():
    with sx.Graph("net") as g:
        x = sx.placeholder((3,), name="x")
        w = sx.variable(np.ones(3, np.float32), name="w")
        b = sx.variable(np.zeros(3, np.float32), name="b", trainable=False)
        h = x * w
        y = sx.nn.relu(h + b)
    assert g.roots(y) == [x, w, b] and sx.roots([y]) == [x, w, b]
    anc = g.ancestors(y)
    assert h in anc and x in anc and y not in anc
    assert g.ancestors([y, h]).count(h) == 1
    assert h in g.ops and y in g.ops and x not in g.ops
    assert "net" in repr(g) and g.name == "net"
    # Tensor.variables: trainable ones by default, as SymJAX's.
    assert y.variables() == [w] and y.variables(trainable=None) == [w, b] and y.variables(False) == [b]
    assert sx.get_variables("*", "/net/") == [w] and sx.get_variables("*", "/net/", trainable=None) == [w, b]
    assert sx.get_ops("relu", scope="/net") == [y]
    assert g.scope_name == "/net/"


def test_tensor_clone_reset_initializer_and_placeholder_like():
    x = sx.placeholder((4, 2), "float64", name="x")
    w = sx.variable(lambda shape, dtype: np.full(shape, 3.0, dtype), (2,), name="w")
    y = sx.sum(x * w)
    x2 = sx.placeholder_like(x, name="x2")
    assert x2.shape == (4, 2) and x2.dtype == np.float64 and x2.name == "x2"
    assert sx.placeholder_like(sx.placeholder((None, 2))).shape == (None, 2)
    y2 = y.clone({x: x2 * 2})
    np.testing.assert_allclose(y2.eval({x2: np.ones((4, 2))}), 48.0)
    w.assign(np.zeros(2, np.float32))
    w.reset()
    np.testing.assert_array_equal(w.value, [3, 3])
    np.testing.assert_array_equal(w.initializer((3,), np.float32), [3, 3, 3])
    v = sx.variable(np.arange(2, dtype=np.float32))
    np.testing.assert_array_equal(v.initializer((2,), np.float32), [0, 1])
    phs = sx.placeholder_like([np.zeros((2, 3), np.int32), x])
    assert [p.shape for p in phs] == [(2, 3), (4, 2)] and phs[0].dtype == np.int32
    with sx.Scope("s"):
        assert (x + 1).scope == "/s/"
    assert (x + 1).scope == "/"


def test_graph_errors_and_clear():
    g = sx.Graph("g")
    with g:
        with pytest.raises(ValueError, match=r"Graph 'g': the graph is already the default graph or entered"):
            g.__enter__()
        v = sx.variable(np.zeros(1, np.float32), name="v")
        g.clear()
        assert sx.variables() == [] and sx.current_graph() is g
        assert sx.variable(np.zeros(1, np.float32), name="v").name == "g/v_1"  # the enclosing graph has g/v
    assert v.name == "g/v"
    with pytest.raises(ValueError, match=r"contains '/'"):
        sx.Graph("a/b")
    with pytest.raises(ValueError, match=r"Graph 'g': no variable named 'nope'"):
        g.variable("nope")
    with pytest.raises(ValueError, match=r"exit without a matching enter"):
        g.__exit__(None, None, None)
    # reset_default_graph inside a graph empties that graph and keeps it the default.
    with sx.Graph("k") as k:
        sx.variable(np.zeros(1, np.float32))
        sx.reset_default_graph()
        assert sx.current_graph() is k and k.variables() == []
