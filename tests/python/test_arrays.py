"""symx/arrays.hpp beyond the conformance table: einsum over many subscripts against NumPy and its path against
opt_einsum's greedy, the attention contraction as one library call, edge cases and error messages."""

import numpy as np
import pytest

import symx as sx

pytestmark = pytest.mark.usefixtures("fresh_graph")

SUBSCRIPTS = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("ij,jk", [(3, 4), (4, 5)]),
    ("ij,kj->ik", [(3, 4), (5, 4)]),
    ("ji,jk->ik", [(4, 3), (4, 5)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("bhqd,bhkd->bhqk", [(2, 3, 4, 5), (2, 3, 6, 5)]),
    ("bhqk,bhkd->bhqd", [(2, 3, 4, 6), (2, 3, 6, 5)]),
    ("ii", [(4, 4)]),
    ("ii->i", [(4, 4)]),
    ("iij->ij", [(3, 3, 2)]),
    ("iji->j", [(3, 2, 3)]),
    ("ij->ji", [(3, 4)]),
    ("ij->", [(3, 4)]),
    ("ij", [(3, 4)]),
    ("ba", [(3, 4)]),
    ("i,i", [(5,), (5,)]),
    ("i,j->ij", [(3,), (4,)]),
    ("i,jk->ijk", [(3,), (2, 4)]),
    ("ij,ij->ij", [(3, 4), (3, 4)]),
    ("ij,ij,ij->", [(3, 4), (3, 4), (3, 4)]),
    ("...ij,...jk->...ik", [(2, 3, 4), (2, 4, 5)]),
    ("...ij,...jk", [(2, 1, 3, 4), (5, 4, 2)]),
    ("i...->...", [(3, 2, 4)]),
    ("...i,...i->...", [(2, 1, 3), (4, 3)]),
    ("...", [(2, 3)]),
    ("ab,bc,cd->ad", [(3, 4), (4, 5), (5, 2)]),
    ("ab,bc,cd,de->ae", [(3, 40), (40, 5), (5, 30), (30, 2)]),
    ("abc,cd,de->abe", [(2, 3, 4), (4, 5), (5, 6)]),
    ("ea,fb,abcd,gc,hd->efgh", [(3, 2), (3, 2), (2, 2, 2, 2), (3, 2), (3, 2)]),
    ("ij,jk,ki->", [(3, 4), (4, 5), (5, 3)]),
    ("Ab,bA->", [(3, 4), (4, 3)]),
    ("ijk,ikl->jl", [(2, 3, 4), (2, 4, 5)]),
    ("i,i,i->i", [(4,), (4,), (4,)]),
    ("ij,j->i", [(3, 0), (0,)]),
]


@pytest.mark.parametrize("subscripts,shapes", SUBSCRIPTS, ids=[s for s, _ in SUBSCRIPTS])
def test_einsum_against_numpy_and_path_against_opt_einsum(subscripts, shapes):
    opt_einsum = pytest.importorskip("opt_einsum")
    rng = np.random.default_rng(len(subscripts))
    ops = [rng.standard_normal(s) for s in shapes]
    want = np.einsum(subscripts, *ops)
    np.testing.assert_allclose(sx.einsum(subscripts, *ops).eval(), want, rtol=1e-10, atol=1e-12)
    path, text = sx.einsum_path(subscripts, *ops)
    assert path[0] == "einsum_path" and "Complete contraction" in text
    if len(ops) > 1:
        greedy = opt_einsum.contract_path(subscripts, *ops, optimize="greedy")[0]
        assert [tuple(p) for p in path[1:]] == [tuple(p) for p in greedy]
    # An explicit path (einsum_path's, or optimize=False: left to right) gives the same values.
    np.testing.assert_allclose(sx.einsum(subscripts, *ops, optimize=path).eval(), want, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(sx.einsum(subscripts, *ops, optimize=False).eval(), want, rtol=1e-10, atol=1e-12)


def test_einsum_compiled_and_gradients_of_several_subscripts():
    rng = np.random.default_rng(0)
    cases = [s for s in SUBSCRIPTS if all(0 not in shape for shape in s[1])][:24]
    phs, outs, feeds, refs = [], [], [], []
    for subscripts, shapes in cases:
        ops = [rng.standard_normal(s).astype(np.float32) for s in shapes]
        p = [sx.placeholder(s, "float32") for s in shapes]
        phs += p
        feeds += ops
        outs.append(sx.einsum(subscripts, *p))
        refs.append(np.einsum(subscripts, *ops))
    got = sx.function(phs, outs)(*feeds)
    for g, r, (s, _) in zip(got, refs, cases):
        np.testing.assert_allclose(g, r, rtol=1e-4, atol=1e-4, err_msg=s)
    # The gradient of a 3-operand chain against the explicit matmul chain's.
    a, b, c = (sx.placeholder(s, "float64") for s in [(3, 4), (4, 5), (5, 2)])
    vals = [rng.standard_normal(x.shape) for x in (a, b, c)]
    g1 = sx.grad(sx.sum(sx.sin(sx.einsum("ab,bc,cd->ad", a, b, c))), [a, b, c])
    g2 = sx.grad(sx.sum(sx.sin(a @ b @ c)), [a, b, c])
    f = sx.function([a, b, c], g1 + g2)
    out = f(*vals)
    for x, y in zip(out[:3], out[3:]):
        np.testing.assert_allclose(x, y, rtol=1e-10)


def test_attention_einsum_is_one_gemm_reading_the_transpose_through_its_flag():
    q = sx.placeholder((2, 4, 64, 16), "float32")
    k = sx.placeholder((2, 4, 64, 16), "float32")
    f = sx.function([q, k], sx.einsum("bhqd,bhkd->bhqk", q, k))
    text = f.describe()
    assert text.count("library call") == 1 and "B transposed" in text, text
    assert "kernel" not in text.split("kernels:")[1].replace("kernels:", "").replace("library call", ""), text
    rng = np.random.default_rng(1)
    Q, K = (rng.standard_normal((2, 4, 64, 16)).astype(np.float32) for _ in range(2))
    np.testing.assert_allclose(f(Q, K), np.einsum("bhqd,bhkd->bhqk", Q, K), rtol=1e-4, atol=1e-4)


def test_batched_transposed_operands_with_broadcast_batches_compiled():
    rng = np.random.default_rng(2)
    a = sx.placeholder((2, 1, 5, 4), "float64")
    b = sx.placeholder((3, 6, 4), "float64")
    c = sx.placeholder((2, 3, 4, 5), "float64")
    outs = [sx.matmul(a, sx.swapaxes(b, -1, -2)), sx.matmul(sx.matrix_transpose(c), sx.swapaxes(b, 1, 2))]
    outs += sx.grad(sx.sum(outs[0] * outs[0]) + sx.sum(outs[1]), [a, b, c])
    A, B, C = rng.standard_normal((2, 1, 5, 4)), rng.standard_normal((3, 6, 4)), rng.standard_normal((2, 3, 4, 5))
    got = sx.function([a, b, c], outs)(A, B, C)
    want = sx.function([a, b, c], outs, backend="reference")(A, B, C)
    np.testing.assert_allclose(got[0], A @ np.swapaxes(B, -1, -2), rtol=1e-12)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)


def test_edge_cases():
    assert sx.atleast_1d(3.0).shape == (1,)
    x, y = sx.atleast_2d(1.0, [1, 2])
    assert x.shape == (1, 1) and y.shape == (1, 2)
    assert sx.atleast_3d(np.zeros((2, 3))).shape == (2, 3, 1)
    assert sx.diff(np.zeros((0,))).shape == (0,)
    assert sx.diff(np.zeros((3,)), 5).shape == (0,)
    assert sx.trace(np.zeros((0, 0))).eval() == 0
    assert sx.diagonal(np.zeros((2, 3)), 5).shape == (0,)
    np.testing.assert_array_equal(sx.roll(np.arange(5), -7).eval(), np.roll(np.arange(5), -7))
    np.testing.assert_array_equal(sx.roll(np.zeros((0, 3)), 2, 0).eval(), np.zeros((0, 3)))
    assert sx.resize(np.zeros((0,)), (2, 2)).shape == (2, 2)
    assert sx.moveaxis(np.zeros((2, 3, 4)), -1, -3).shape == (4, 2, 3)
    assert sx.unstack(np.zeros((2, 0)), axis=1) == []
    np.testing.assert_array_equal(sx.einsum("i,i->", np.zeros(0), np.zeros(0)).eval(), 0.0)
    np.testing.assert_array_equal(sx.full((), 3).eval(), np.full((), 3))
    assert sx.full((2,), 1.5).dtype == np.float32 and sx.full((2,), 1).dtype == np.int64
    np.testing.assert_array_equal(sx.diff(np.array([True, False, False])).eval(), [True, False])
    np.testing.assert_array_equal(sx.tensordot(np.ones((2, 3)), np.ones((3, 2)), 0).shape, (2, 3, 3, 2))
    assert sx.concat is sx.concatenate and sx.row_stack is sx.vstack
    np.testing.assert_array_equal(sx.index[1:3], np.index_exp[1:3])
    with pytest.warns(DeprecationWarning):
        want = np.cross([1.0, 2.0], [3.0, 4.0])
    np.testing.assert_allclose(sx.cross(np.array([1.0, 2.0]), np.array([3.0, 4.0])).eval(), want)


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda: sx.einsum("ij,jk", np.ones((2, 3))), "name 2 operands but 1 were given"),
        (lambda: sx.einsum("ij,jk", np.ones((2, 3)), np.ones((4, 5))), "label 'j'.*has size 4"),
        (lambda: sx.einsum("ijk", np.ones((2, 3))), "has 2 dimensions but its term 'ijk' names 3"),
        (lambda: sx.einsum("i1", np.ones((2, 3))), "invalid character '1'"),
        (lambda: sx.einsum("ij->ik", np.ones((2, 3))), "output label 'k' is not in any input"),
        (lambda: sx.einsum("ij->ii", np.ones((2, 3))), "output label 'i' is repeated"),
        (lambda: sx.einsum("i.j", np.ones((2, 3))), "not part of an ellipsis"),
        (lambda: sx.einsum("ij,jk", np.ones((2, 3)), np.ones((3, 4)), optimize=[(0, 5)]), "the path names operand 5"),
        (lambda: sx.moveaxis(np.ones((2, 3)), [0, 1], [0]), "same number of axes"),
        (lambda: sx.moveaxis(np.ones((2, 3)), 2, 0), "source axis 2 is out of range"),
        (lambda: sx.swapaxes(np.ones((2, 3)), 0, -3), "axis1|axis2"),
        (lambda: sx.diagonal(np.ones((2, 3)), 0, 1, -1), "axis1 and axis2 are the same axis 1"),
        (lambda: sx.diag(np.ones((2, 2, 2))), "needs a 1-D or 2-D tensor"),
        (lambda: sx.matrix_transpose(np.ones(3)), "needs at least 2 dimensions"),
        (lambda: sx.vsplit(np.ones(4), 2), "2 or more dimensions"),
        (lambda: sx.hsplit(np.ones((2, 5)), 2), "does not split into 2 equal sections"),
        (lambda: sx.tensordot(np.ones((2, 3)), np.ones((4, 2)), 1), "shape mismatch for sum"),
        (lambda: sx.tensordot(np.ones((2, 3)), np.ones((3,)), 3), "out of range"),
        (lambda: sx.convolve(np.ones(3), np.ones(2), "middle"), "unknown mode 'middle'"),
        (lambda: sx.convolve(np.ones((3, 2)), np.ones(2)), "needs 1-D operands"),
        (lambda: sx.geomspace(0, 10, 3), "must be nonzero"),
        (lambda: sx.dimshuffle(np.ones((2, 3)), (1,)), "axis 0 of size 2 is left out"),
        (lambda: sx.index_in_dim(np.ones((2, 3)), 3, 1), "index 3 is out of bounds for axis 1 of size 3"),
        (lambda: sx.dynamic_slice(np.ones((4, 3)), (1,), (2, 2)), "one start index and one slice size per axis"),
        (lambda: sx.dynamic_slice_in_dim(np.ones(4), 1, 5), "slice size 5 does not fit"),
        (lambda: sx.fill_diagonal(np.ones((2, 3, 2)), 1.0), "equal length"),
        (lambda: sx.cross(np.ones(4), np.ones(3)), "dimension must be 2 or 3"),
        (lambda: sx.insert(np.ones(3), 5, 1.0), "index 5 is out of bounds"),
        (lambda: sx.ravel_multi_index((np.array([1]),), (2, 3)), "1 index arrays for 2 dimensions"),
        (lambda: sx.block([[np.ones(2)], np.ones(2)]), "nested to different depths"),
        (lambda: sx.rot90(np.ones((2, 2)), 1, (0, 0)), "same axis 0"),
        (lambda: sx.polyder(np.ones((2, 2))), "must be 1-D"),
        (lambda: sx.roll(np.ones((2, 2)), (1, 2), (0, 1, 1)), "different lengths"),
    ],
)
def test_errors_name_the_problem(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()
