// NumPy's promotion of two operands with weak numbers (NEP 50, the contract in symx/tensor.hpp), shared
// by the binary ops (binary.cpp) and the NumPy surface's (numpy.cpp). Defined in binary.cpp.
#pragma once

#include "symx/ops.hpp"

namespace symx::ops {

// The dtype of a weak number alone: int64 for an integer, float32 for a float, complex64 for a complex.
DType scalar_dtype(const Operand& s);
// The dtype two operands compute in. A weak complex number beside a tensor makes it complex of the
// tensor's precision (complex64 beside integers).
DType common_dtype(const Operand& a, const Operand& b);
// The operand as a tensor of `dtype` (a number a constant, complex ones included).
Tensor as_tensor(const Operand& x, DType dtype, Loc loc);

}  // namespace symx::ops
