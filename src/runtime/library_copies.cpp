// Concatenate and unslice (the gradient of a slice) as block copies: each piece is a run of
// contiguous rows copied with memcpy, in parallel over the outer rows when the copy is large.
// An unslice first zeroes its output. Steps other than 1 keep the reference evaluation.
#include <cstring>

#include "runtime/library_internal.hpp"

namespace symx::runtime::detail {
namespace {

std::int64_t product(const Shape& s, std::size_t from, std::size_t to) {
  std::int64_t n = 1;
  for (std::size_t d = from; d < to; ++d) n *= s[d];
  return n;
}

// Copies `outer` rows of `src_row` bytes from src (rows contiguous) to dst (rows `dst_stride` apart).
void copy_rows(char* dst, std::size_t dst_stride, const char* src, std::size_t src_row, std::int64_t outer) {
  if (src_row == 0) return;
  if (static_cast<std::size_t>(outer) * src_row < (1u << 20)) {
    for (std::int64_t o = 0; o < outer; ++o)
      std::memcpy(dst + static_cast<std::size_t>(o) * dst_stride, src + static_cast<std::size_t>(o) * src_row, src_row);
    return;
  }
#pragma omp parallel for schedule(static)
  for (std::int64_t o = 0; o < outer; ++o)
    std::memcpy(dst + static_cast<std::size_t>(o) * dst_stride, src + static_cast<std::size_t>(o) * src_row, src_row);
}

class ConcatenateCall final : public LibraryCall {
 public:
  explicit ConcatenateCall(const Tensor& node) {
    const int axis = std::get<AxisAttr>(node.node().attr).axis;
    const Shape& out = node.shape();
    const std::size_t item = itemsize(node.dtype());
    outer_ = product(out, 0, static_cast<std::size_t>(axis));
    const std::int64_t inner = product(out, static_cast<std::size_t>(axis) + 1, out.size());
    dst_stride_ = static_cast<std::size_t>(out[static_cast<std::size_t>(axis)] * inner) * item;
    std::size_t offset = 0;
    for (const Tensor& in : node.node().inputs) {
      const std::size_t row = static_cast<std::size_t>(in.shape()[static_cast<std::size_t>(axis)] * inner) * item;
      pieces_.push_back({offset, row});
      offset += row;
    }
  }
  void run(char* const* p) override {
    char* out = p[pieces_.size()];
    for (std::size_t k = 0; k < pieces_.size(); ++k)
      copy_rows(out + pieces_[k].first, dst_stride_, p[k], pieces_[k].second, outer_);
  }
  std::string describe() const override { return "block copies of " + std::to_string(pieces_.size()) + " pieces"; }

 private:
  std::int64_t outer_ = 1;
  std::size_t dst_stride_ = 0;
  std::vector<std::pair<std::size_t, std::size_t>> pieces_;  // (byte offset in an output row, bytes per row)
};

// An unslice of step 1 on every axis: zero, then the operand's rows into their place. The operand
// is copied as rows of its last `tail` axes, which the slice takes whole.
class UnsliceCall final : public LibraryCall {
 public:
  explicit UnsliceCall(const Tensor& node) {
    const auto& a = std::get<SliceAttr>(node.node().attr);
    const Shape& out = a.input_shape;
    const std::size_t item = itemsize(node.dtype());
    out_bytes_ = static_cast<std::size_t>(product(out, 0, out.size())) * item;
    // The last axis the slice cuts: axes after it are whole, so each (outer index) is one run.
    std::size_t cut = 0;
    for (std::size_t d = 0; d < out.size(); ++d)
      if (!(a.start[d] == 0 && a.count[d] == out[d])) cut = d + 1;
    const std::size_t split = cut == 0 ? 0 : cut - 1;  // rows: axes [0, split); run: axes [split, n)
    const std::int64_t inner = product(out, split + 1, out.size());
    row_bytes_ = static_cast<std::size_t>(a.count.empty() ? 0 : a.count[split] * inner) * item;
    rows_ = product(a.count, 0, split);
    // Destination offset of each row (the outer axes may be cut too).
    Shape counts(a.count.begin(), a.count.begin() + static_cast<std::ptrdiff_t>(split));
    std::vector<std::int64_t> strides(out.size(), 1);
    for (std::size_t d = out.size(); d-- > 1;) strides[d - 1] = strides[d] * out[d];
    std::vector<std::int64_t> idx(split, 0);
    for (std::int64_t r = 0; r < rows_; ++r) {
      std::int64_t flat = 0;
      for (std::size_t d = 0; d < split; ++d) flat += (a.start[d] + idx[d]) * strides[d];
      flat += a.start.empty() ? 0 : a.start[split] * strides[split];
      offsets_.push_back(static_cast<std::size_t>(flat) * item);
      for (std::size_t d = split; d-- > 0;) {
        if (++idx[d] < counts[d]) break;
        idx[d] = 0;
      }
    }
  }
  void run(char* const* p) override {
    std::memset(p[1], 0, out_bytes_);
    for (std::size_t r = 0; r < offsets_.size(); ++r)
      std::memcpy(p[1] + offsets_[r], p[0] + r * row_bytes_, row_bytes_);
  }
  std::string describe() const override { return "zero fill and " + std::to_string(rows_) + " row copies"; }

 private:
  std::size_t out_bytes_ = 0, row_bytes_ = 0;
  std::int64_t rows_ = 0;
  std::vector<std::size_t> offsets_;
};

}  // namespace

std::unique_ptr<LibraryCall> make_copy_call(const Tensor& node) {
  if (node.op() == OpKind::Concatenate) return std::make_unique<ConcatenateCall>(node);
  const auto& a = std::get<SliceAttr>(node.node().attr);
  for (std::int64_t s : a.step)
    if (s != 1) return nullptr;
  if (a.input_shape.empty()) return nullptr;
  return std::make_unique<UnsliceCall>(node);
}

}  // namespace symx::runtime::detail
