// symx/op_list.hpp: the names of the primitive ops (an X-macro: kind, NumPy-style name).
//
// This list only names the ops, for the OpKind enum. Everything else about an op (family, arity,
// traits such as fusible or cheap to recompute, type inference, reference evaluation, gradient and
// lowering) is declared once, in its row of the op table in src/ops/ (see src/ops/op_table.hpp and
// docs/adding-an-op.md). Composite functions (mean, softmax, clip, ...) build graphs of these
// primitives and have no row.
#pragma once

#define SYMX_OP_LIST(X)                                             \
  /* leaves */                                                      \
  X(Placeholder, "placeholder")                                     \
  X(Variable, "variable")                                           \
  X(Constant, "constant")                                           \
  /* unary elementwise */                                           \
  X(Negative, "negative")                                           \
  X(Abs, "abs")                                                     \
  X(Sign, "sign")                                                   \
  X(Exp, "exp")                                                     \
  X(Expm1, "expm1")                                                 \
  X(Log, "log")                                                     \
  X(Log1p, "log1p")                                                 \
  X(Sqrt, "sqrt")                                                   \
  X(Rsqrt, "rsqrt")                                                 \
  X(Square, "square")                                               \
  X(Reciprocal, "reciprocal")                                       \
  X(Sin, "sin")                                                     \
  X(Cos, "cos")                                                     \
  X(Tan, "tan")                                                     \
  X(Tanh, "tanh")                                                   \
  X(Arctan, "arctan")                                               \
  X(Sigmoid, "sigmoid")                                             \
  X(Erf, "erf")                                                     \
  X(Floor, "floor")                                                 \
  X(Ceil, "ceil")                                                   \
  X(Round, "round")                                                 \
  X(LogicalNot, "logical_not")                                      \
  X(IsNan, "isnan")                                                 \
  X(BitwiseNot, "bitwise_not")                                      \
  X(IsFinite, "isfinite")                                           \
  /* special functions (symx/special.hpp) */                        \
  X(Lgamma, "lgamma")                                               \
  X(Digamma, "digamma")                                             \
  X(Erfc, "erfc")                                                   \
  X(Erfinv, "erfinv")                                               \
  X(Erfcx, "erfcx")                                                 \
  X(Ndtri, "ndtri")                                                 \
  X(LogNdtr, "log_ndtr")                                            \
  X(I0e, "i0e")                                                     \
  X(I1e, "i1e")                                                     \
  X(Expi, "expi")                                                   \
  X(Exp1, "exp1")                                                   \
  X(Spence, "spence")                                               \
  X(Dawsn, "dawsn")                                                 \
  X(FresnelS, "fresnel_s")                                          \
  X(FresnelC, "fresnel_c")                                          \
  X(Sinint, "sinint")                                               \
  X(Cosint, "cosint")                                               \
  X(BitwiseCount, "bitwise_count")                                  \
  X(Cast, "cast")                                                   \
  X(StopGradient, "stop_gradient")                                  \
  /* complex numbers (symx/ops.hpp) */                              \
  X(Real, "real")                                                   \
  X(Imag, "imag")                                                   \
  X(Conj, "conj")                                                   \
  X(Complex, "complex")                                             \
  /* more unary elementwise (symx/numpy.hpp) */                     \
  X(Arcsin, "arcsin")                                               \
  X(Arccos, "arccos")                                               \
  X(Arcsinh, "arcsinh")                                             \
  X(Arccosh, "arccosh")                                             \
  X(Arctanh, "arctanh")                                             \
  X(Sinh, "sinh")                                                   \
  X(Cosh, "cosh")                                                   \
  X(Log2, "log2")                                                   \
  X(Log10, "log10")                                                 \
  X(Exp2, "exp2")                                                   \
  X(Cbrt, "cbrt")                                                   \
  X(Signbit, "signbit")                                             \
  /* binary elementwise (operands already promoted to one dtype) */ \
  X(Add, "add")                                                     \
  X(Subtract, "subtract")                                           \
  X(Multiply, "multiply")                                           \
  X(Divide, "divide")                                               \
  X(Power, "power")                                                 \
  X(Maximum, "maximum")                                             \
  X(Minimum, "minimum")                                             \
  X(Mod, "mod")                                                     \
  X(Arctan2, "arctan2")                                             \
  /* more binary elementwise (symx/numpy.hpp) */                    \
  X(Hypot, "hypot")                                                 \
  X(Copysign, "copysign")                                           \
  X(Fmod, "fmod")                                                   \
  X(Equal, "equal")                                                 \
  X(NotEqual, "not_equal")                                          \
  X(Less, "less")                                                   \
  X(LessEqual, "less_equal")                                        \
  X(Greater, "greater")                                             \
  X(GreaterEqual, "greater_equal")                                  \
  X(LogicalAnd, "logical_and")                                      \
  X(LogicalOr, "logical_or")                                        \
  X(FloorDivide, "floor_divide")                                    \
  X(BitwiseAnd, "bitwise_and")                                      \
  X(BitwiseOr, "bitwise_or")                                        \
  X(BitwiseXor, "bitwise_xor")                                      \
  X(LeftShift, "left_shift")                                        \
  X(RightShift, "right_shift")                                      \
  /* binary special, integer (symx/special.hpp) */                  \
  X(Zeta, "zeta")                                                   \
  X(Gammainc, "gammainc")                                           \
  X(Gammaincc, "gammaincc")                                         \
  X(Betainc, "betainc")                                             \
  X(Expn, "expn")                                                   \
  X(Jn, "jn")                                                       \
  X(Hyp1f1, "hyp1f1")                                               \
  X(Hyp2f1, "hyp2f1")                                               \
  X(OwensT, "owens_t")                                              \
  X(Gcd, "gcd")                                                     \
  X(Lcm, "lcm")                                                     \
  X(Nextafter, "nextafter")                                         \
  X(Where, "where")                                                 \
  /* reductions and scans */                                        \
  X(Sum, "sum")                                                     \
  X(Prod, "prod")                                                   \
  X(Max, "max")                                                     \
  X(Min, "min")                                                     \
  X(Argmax, "argmax")                                               \
  X(Argmin, "argmin")                                               \
  X(Cumsum, "cumsum")                                               \
  /* sorting, searching, scans (symx/sorting.hpp) */                \
  X(Sort, "sort")                                                   \
  X(Argsort, "argsort")                                             \
  X(Partition, "partition")                                         \
  X(Argpartition, "argpartition")                                   \
  X(KthValues, "kth_values")                                        \
  X(Searchsorted, "searchsorted")                                   \
  X(Cumprod, "cumprod")                                             \
  X(Cummax, "cummax")                                               \
  X(Cummin, "cummin")                                               \
  X(Logcumsumexp, "logcumsumexp")                                   \
  X(LinearRecurrence, "linear_recurrence")                          \
  /* shape and indexing */                                          \
  X(Reshape, "reshape")                                             \
  X(Transpose, "transpose")                                         \
  X(BroadcastTo, "broadcast_to")                                    \
  X(Concatenate, "concatenate")                                     \
  X(Slice, "slice")                                                 \
  X(Unslice, "unslice")                                             \
  X(Pad, "pad")                                                     \
  X(Take, "take")                                                   \
  X(ScatterAdd, "scatter_add")                                      \
  X(TakeAlongAxis, "take_along_axis")                               \
  X(ScatterAddAlongAxis, "scatter_add_along_axis")                  \
  /* indexed updates (symx/indexing.hpp) */                         \
  X(ScatterSet, "scatter_set")                                      \
  X(ScatterMul, "scatter_mul")                                      \
  X(ScatterMin, "scatter_min")                                      \
  X(ScatterMax, "scatter_max")                                      \
  /* linear algebra */                                              \
  X(Matmul, "matmul")                                               \
  X(Inv, "inv")                                                     \
  X(Det, "det")                                                     \
  X(Slogdet, "slogdet")                                             \
  X(Cholesky, "cholesky")                                           \
  X(Solve, "solve")                                                 \
  X(TriangularSolve, "triangular_solve")                            \
  /* factorizations (symx/linalg_factor.hpp) */                     \
  X(Qr, "qr")                                                       \
  X(LuFactor, "lu_factor")                                          \
  X(LuPivotsToPermutation, "lu_pivots_to_permutation")              \
  /* spectral decompositions (symx/linalg.hpp) */                   \
  X(Eigh, "eigh")                                                   \
  X(Eigvalsh, "eigvalsh")                                           \
  X(Svd, "svd")                                                     \
  X(SvdFull, "svd_full")                                            \
  X(Svdvals, "svdvals")                                             \
  /* Fourier transforms (symx/fft.hpp) */                           \
  X(Fft, "fft")                                                     \
  /* neural-network primitives */                                   \
  X(Conv, "conv")                                                   \
  X(ConvBackwardInput, "conv_backward_input")                       \
  X(ConvBackwardFilter, "conv_backward_filter")                     \
  X(MaxPool, "max_pool")                                            \
  X(MaxPoolGrad, "max_pool_grad")                                   \
  X(AvgPool, "avg_pool")                                            \
  X(AvgPoolGrad, "avg_pool_grad")                                   \
  X(SoftmaxCrossEntropy, "softmax_cross_entropy")                   \
  X(SoftmaxCrossEntropyGrad, "softmax_cross_entropy_grad")          \
  /* random draws: input 0 is the graph's random-state variable */  \
  X(RandomUniform, "random_uniform")                                \
  X(RandomNormal, "random_normal")                                  \
  X(RandomTruncatedNormal, "random_truncated_normal")               \
  X(RandomBernoulli, "random_bernoulli")                            \
  X(RandomRandint, "random_randint")                                \
  X(RandomPermutation, "random_permutation")                        \
  /* more distributions (symx/ops.hpp random) */                    \
  X(RandomGamma, "random_gamma")                                    \
  X(RandomPoisson, "random_poisson")                                \
  X(RandomGammaGrad, "random_gamma_grad")                           \
  /* calls into the host program (host_call) */                     \
  X(HostCall, "host_call")                                          \
  /* control flow (symx/control_flow.hpp): nodes with regions */    \
  X(Scan, "scan")                                                   \
  X(WhileLoop, "while_loop")                                        \
  X(Switch, "switch")                                               \
  /* one result of a node with several (a loop's carry, outputs) */ \
  X(Part, "part")

namespace symx {

enum class OpKind : int {
#define SYMX_OP_ENUM(kind, name) kind,
  SYMX_OP_LIST(SYMX_OP_ENUM)
#undef SYMX_OP_ENUM
};

inline constexpr int kNumOps = 0
#define SYMX_OP_COUNT(kind, name) +1
    SYMX_OP_LIST(SYMX_OP_COUNT)
#undef SYMX_OP_COUNT
    ;

// The op's name as listed above.
const char* op_name(OpKind op);
// How many inputs a node of the op has, from its row of the op table (-1: any number).
int op_arity(OpKind op);

}  // namespace symx
