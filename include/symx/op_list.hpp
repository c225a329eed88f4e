// symx/op_list.hpp: the one list of primitive ops (an X-macro: kind, NumPy-style name, arity).
//
// Every primitive has exactly one row here and one OpDef (type inference, reference evaluation,
// vector-Jacobian rule) in src/ops/. Composite functions (mean, softmax, clip, ...) build graphs
// of these primitives and have no row. Arity -1 means variadic.
#pragma once

#define SYMX_OP_LIST(X)                                                    \
  /* leaves */                                                             \
  X(Placeholder, "placeholder", 0)                                         \
  X(Variable, "variable", 0)                                               \
  X(Constant, "constant", 0)                                               \
  /* unary elementwise */                                                  \
  X(Negative, "negative", 1)                                               \
  X(Abs, "abs", 1)                                                         \
  X(Sign, "sign", 1)                                                       \
  X(Exp, "exp", 1)                                                         \
  X(Expm1, "expm1", 1)                                                     \
  X(Log, "log", 1)                                                         \
  X(Log1p, "log1p", 1)                                                     \
  X(Sqrt, "sqrt", 1)                                                       \
  X(Rsqrt, "rsqrt", 1)                                                     \
  X(Square, "square", 1)                                                   \
  X(Reciprocal, "reciprocal", 1)                                           \
  X(Sin, "sin", 1)                                                         \
  X(Cos, "cos", 1)                                                         \
  X(Tan, "tan", 1)                                                         \
  X(Tanh, "tanh", 1)                                                       \
  X(Arctan, "arctan", 1)                                                   \
  X(Sigmoid, "sigmoid", 1)                                                 \
  X(Erf, "erf", 1)                                                         \
  X(Floor, "floor", 1)                                                     \
  X(Ceil, "ceil", 1)                                                       \
  X(Round, "round", 1)                                                     \
  X(LogicalNot, "logical_not", 1)                                          \
  X(IsNan, "isnan", 1)                                                     \
  X(BitwiseNot, "bitwise_not", 1)                                          \
  X(IsFinite, "isfinite", 1)                                               \
  X(Cast, "cast", 1)                                                       \
  X(StopGradient, "stop_gradient", 1)                                      \
  /* binary elementwise (operands already promoted to one dtype) */        \
  X(Add, "add", 2)                                                         \
  X(Subtract, "subtract", 2)                                               \
  X(Multiply, "multiply", 2)                                               \
  X(Divide, "divide", 2)                                                   \
  X(Power, "power", 2)                                                     \
  X(Maximum, "maximum", 2)                                                 \
  X(Minimum, "minimum", 2)                                                 \
  X(Mod, "mod", 2)                                                         \
  X(Arctan2, "arctan2", 2)                                                 \
  X(Equal, "equal", 2)                                                     \
  X(NotEqual, "not_equal", 2)                                              \
  X(Less, "less", 2)                                                       \
  X(LessEqual, "less_equal", 2)                                            \
  X(Greater, "greater", 2)                                                 \
  X(GreaterEqual, "greater_equal", 2)                                      \
  X(LogicalAnd, "logical_and", 2)                                          \
  X(LogicalOr, "logical_or", 2)                                            \
  X(FloorDivide, "floor_divide", 2)                                        \
  X(BitwiseAnd, "bitwise_and", 2)                                          \
  X(BitwiseOr, "bitwise_or", 2)                                            \
  X(BitwiseXor, "bitwise_xor", 2)                                          \
  X(LeftShift, "left_shift", 2)                                            \
  X(RightShift, "right_shift", 2)                                          \
  X(Where, "where", 3)                                                     \
  /* reductions and scans */                                               \
  X(Sum, "sum", 1)                                                         \
  X(Prod, "prod", 1)                                                       \
  X(Max, "max", 1)                                                         \
  X(Min, "min", 1)                                                         \
  X(Argmax, "argmax", 1)                                                   \
  X(Argmin, "argmin", 1)                                                   \
  X(Cumsum, "cumsum", 1)                                                   \
  /* shape and indexing */                                                 \
  X(Reshape, "reshape", 1)                                                 \
  X(Transpose, "transpose", 1)                                             \
  X(BroadcastTo, "broadcast_to", 1)                                        \
  X(Concatenate, "concatenate", -1)                                        \
  X(Slice, "slice", 1)                                                     \
  X(Unslice, "unslice", 1)                                                 \
  X(Pad, "pad", 1)                                                         \
  X(Take, "take", 2)                                                       \
  X(ScatterAdd, "scatter_add", 2)                                          \
  X(TakeAlongAxis, "take_along_axis", 2)                                   \
  X(ScatterAddAlongAxis, "scatter_add_along_axis", 2)                      \
  /* linear algebra */                                                     \
  X(Matmul, "matmul", 2)                                                   \
  X(Inv, "inv", 1)                                                         \
  X(Det, "det", 1)                                                         \
  X(Slogdet, "slogdet", 1)                                                 \
  X(Cholesky, "cholesky", 1)                                               \
  X(Solve, "solve", 2)                                                     \
  X(TriangularSolve, "triangular_solve", 2)                                \
  /* neural-network primitives */                                          \
  X(Conv, "conv", 2)                                                       \
  X(ConvBackwardInput, "conv_backward_input", 2)                           \
  X(ConvBackwardFilter, "conv_backward_filter", 2)                         \
  X(MaxPool, "max_pool", 1)                                                \
  X(MaxPoolGrad, "max_pool_grad", 2)                                       \
  X(AvgPool, "avg_pool", 1)                                                \
  X(AvgPoolGrad, "avg_pool_grad", 1)                                       \
  X(SoftmaxCrossEntropy, "softmax_cross_entropy", 2)                       \
  X(SoftmaxCrossEntropyGrad, "softmax_cross_entropy_grad", 3)              \
  /* random draws: input 0 is the graph's random-state variable */         \
  X(RandomUniform, "random_uniform", 1)                                    \
  X(RandomNormal, "random_normal", 1)                                      \
  X(RandomTruncatedNormal, "random_truncated_normal", 1)                   \
  X(RandomBernoulli, "random_bernoulli", 1)                                \
  X(RandomRandint, "random_randint", 1)                                    \
  X(RandomPermutation, "random_permutation", 1)

namespace symx {

enum class OpKind : int {
#define SYMX_OP_ENUM(kind, name, arity) kind,
  SYMX_OP_LIST(SYMX_OP_ENUM)
#undef SYMX_OP_ENUM
};

inline constexpr int kNumOps = 0
#define SYMX_OP_COUNT(kind, name, arity) +1
    SYMX_OP_LIST(SYMX_OP_COUNT)
#undef SYMX_OP_COUNT
    ;

// The op's name as listed above.
const char* op_name(OpKind op);
// The op's arity as listed above (-1: variadic).
int op_arity(OpKind op);

}  // namespace symx
