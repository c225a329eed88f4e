// The compiled loop: a scan, while_loop or switch node runs its regions' programs (compiled once,
// when the outer program is built, with kernels and library calls fused as in any graph). Per
// iteration it only swaps pointers: carries are double-buffered (the last iteration writes the
// final carries straight into the node's packed result), each output of a scan is written in
// place into its row of the stacked result, and sequences are read through pointers to their
// rows. Nothing is compiled or allocated per iteration; every 1024 iterations the loop polls for an
// interrupt (request_interrupt, Python's Ctrl-C), which throws before any variable is written.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <sstream>

#include "core/memory.hpp"
#include "ops/control_flow.hpp"
#include "runtime/library_internal.hpp"
#include "runtime/program.hpp"

namespace symx::runtime {
namespace {
std::atomic<RegionCompiler> installed_compiler{nullptr};
}  // namespace

void set_region_compiler(RegionCompiler compiler) { installed_compiler.store(compiler); }
RegionCompiler region_compiler() { return installed_compiler.load(); }

namespace detail {
namespace {

std::size_t bytes_of(const TensorType& t) {
  return static_cast<std::size_t>(num_elements(t.shape)) * itemsize(t.dtype);
}

// Scratch owned for one run of a call: the carries' second buffers.
struct Buffers {
  std::unique_ptr<char, void (*)(void*)> data{nullptr, std::free};
  explicit Buffers(std::size_t bytes) {
    if (bytes) data.reset(static_cast<char*>(symx::detail::allocate_aligned(bytes)));
  }
};

class LoopCall final : public LibraryCall {
 public:
  explicit LoopCall(const Tensor& node) : spec_(ops::loop_spec_ptr(node)), label_(node.label()) {
    RegionCompiler compile = region_compiler();
    check_internal(compile != nullptr, "loop call: no region compiler installed");
    for (const Region& r : spec_->regions) programs_.push_back(compile(r.params, r.results));
    for (const Region& r : spec_->regions) {
      std::vector<std::size_t> bytes;
      for (const Tensor& p : r.params) bytes.push_back(bytes_of(p.type()));
      param_bytes_.push_back(std::move(bytes));
    }
    for (std::size_t k = 0; k < static_cast<std::size_t>(spec_->carries); ++k) {
      carry_offsets_.push_back(carry_bytes_);
      carry_bytes_ += (bytes_of(spec_->result_types[k]) + 63) / 64 * 64;
    }
  }

  void run(char* const* p) override {
    switch (spec_->kind) {
      case LoopSpec::Kind::scan: return run_scan(p);
      case LoopSpec::Kind::while_loop: return run_while(p);
      case LoopSpec::Kind::switch_: return run_switch(p);
    }
  }

  std::string describe() const override {
    std::ostringstream os;
    os << spec_->name << " of "
       << (spec_->kind == LoopSpec::Kind::scan ? std::to_string(spec_->length) + " steps, " : "") << programs_.size()
       << (programs_.size() == 1 ? " compiled region" : " compiled regions");
    return os.str();
  }

  // Each region's compiled program, described under its label ("body", "cond", "branch 0").
  std::string details() const override {
    std::ostringstream os;
    for (std::size_t k = 0; k < programs_.size(); ++k) {
      os << spec_->region_name(k) << " of " << label_ << ", compiled:\n";
      std::istringstream lines(programs_[k]->describe());
      for (std::string line; std::getline(lines, line);) os << "  " << line << "\n";
    }
    return os.str();
  }

 private:
  void run_scan(char* const* p) {
    const LoopSpec& s = *spec_;
    const auto nc = static_cast<std::size_t>(s.carries), ns = static_cast<std::size_t>(s.sequences);
    const std::size_t n_in = s.regions[0].params.size(), n_out = s.result_types.size();
    char* out = p[n_in];
    std::vector<char*> in(p, p + n_in), res(n_out);
    if (s.length == 0) {
      for (std::size_t k = 0; k < nc; ++k) std::memcpy(out + s.offsets[k], p[k], bytes_of(s.result_types[k]));
      return;
    }
    Buffers second(carry_bytes_);
    std::vector<std::size_t> row_bytes(n_out, 0);
    for (std::size_t k = nc; k < n_out; ++k)
      row_bytes[k] =
          s.result_types[k].shape.empty() ? 0 : bytes_of(s.result_types[k]) / static_cast<std::size_t>(s.length);
    Program::Runner runner(*programs_[0]);
    for (std::int64_t i = 0; i < s.length; ++i) {
      if ((i & 1023) == 1023) symx::detail::poll_interrupt();
      const auto t = static_cast<std::size_t>(s.reverse ? s.length - 1 - i : i);
      // The last iteration writes into the result: work back the parity from it.
      const bool into_result = ((s.length - 1 - i) & 1) == 0;
      for (std::size_t k = 0; k < nc; ++k)
        res[k] = into_result ? out + s.offsets[k] : second.data.get() + carry_offsets_[k];
      for (std::size_t j = 0; j < ns; ++j) in[nc + j] = p[nc + j] + t * param_bytes_[0][nc + j];
      for (std::size_t k = nc; k < n_out; ++k) res[k] = out + s.offsets[k] + t * row_bytes[k];
      runner.run(in.data(), res.data());
      for (std::size_t k = 0; k < nc; ++k) in[k] = res[k];
    }
  }

  void run_while(char* const* p) {
    const LoopSpec& s = *spec_;
    const auto nc = static_cast<std::size_t>(s.carries);
    const std::size_t n_in = s.regions[0].params.size();
    char* out = p[n_in];
    std::vector<char*> in(p, p + n_in), next(nc);
    Buffers a(carry_bytes_), b(carry_bytes_);
    Program::Runner cond(*programs_[0]), body(*programs_[1]);
    bool flag = false;
    char* flag_ptr = reinterpret_cast<char*>(&flag);
    bool use_a = true;
    for (std::int64_t i = 0;; ++i) {
      if ((i & 1023) == 1023) symx::detail::poll_interrupt();
      cond.run(in.data(), &flag_ptr);
      if (!flag) break;
      char* buf = use_a ? a.data.get() : b.data.get();
      use_a = !use_a;
      for (std::size_t k = 0; k < nc; ++k) next[k] = buf + carry_offsets_[k];
      body.run(in.data(), next.data());
      for (std::size_t k = 0; k < nc; ++k) in[k] = next[k];
    }
    for (std::size_t k = 0; k < nc; ++k) std::memcpy(out + s.offsets[k], in[k], bytes_of(s.result_types[k]));
  }

  void run_switch(char* const* p) {
    const LoopSpec& s = *spec_;
    const auto n = static_cast<std::int64_t>(programs_.size());
    std::int32_t index = 0;
    std::memcpy(&index, p[0], sizeof index);
    const auto k = static_cast<std::size_t>(std::clamp<std::int64_t>(index, 0, n - 1));
    const std::size_t n_in = s.regions[k].params.size();
    char* out = p[n_in + 1];
    std::vector<char*> res;
    for (std::size_t r = 0; r < s.result_types.size(); ++r) res.push_back(out + s.offsets[r]);
    Program::Runner runner(*programs_[k]);
    runner.run(p + 1, res.data());
  }

  std::shared_ptr<const LoopSpec> spec_;
  std::string label_;
  std::vector<std::unique_ptr<Program>> programs_;
  std::vector<std::vector<std::size_t>> param_bytes_;  // per region, per param
  std::vector<std::size_t> carry_offsets_;
  std::size_t carry_bytes_ = 0;
};

}  // namespace

std::unique_ptr<LibraryCall> make_loop_call(const Tensor& node) {
  if (region_compiler() == nullptr) return nullptr;
  return std::make_unique<LoopCall>(node);
}

}  // namespace detail
}  // namespace symx::runtime
