// oneDNN plumbing shared by the library calls: the engine and per-thread stream, the call
// attributes (a user scratchpad and the exact ReLU post-ops), and DnnlCall, a primitive prepared
// once and bound to a program's buffers on each run.
//
// Every oneDNN call is prepared once, when the program is built: symx's buffers have plain layouts
// (ncw/nchw/ncdhw data, oiw/oihw/oidhw or grouped goi* weights); memory objects are created
// without a handle and pointed at the program's buffers on each run; the scratchpad is owned by
// the call (scratchpad_mode::user). Where a primitive runs on the layouts oneDNN picks
// (channel-blocked convolutions, see library_convolution.cpp), the call reorders its inputs into,
// and its output out of, blocked buffers it allocated at build time.
#include <algorithm>
#include <limits>
#include <stdexcept>

#include "runtime/library_internal.hpp"

namespace symx::runtime::detail {

dnnl::engine& cpu_engine() {
  static auto* engine = new dnnl::engine(dnnl::engine::kind::cpu, 0);
  return *engine;
}

dnnl::stream& cpu_stream() {
  static thread_local dnnl::stream stream(cpu_engine());
  return stream;
}

// The ReLU must equal the reference's maximum(x, 0) on every value, and oneDNN's eltwise_relu
// (a vmaxps against 0) turns NaN into 0 where maximum propagates it. Three post-ops are exact
// instead: elu with the smallest denormal alpha keeps x > 0 and NaN and maps every other value,
// -inf included, into [-alpha, 0]; leaky relu with the same alpha underflows those to -0; adding
// 0 makes -0 into +0. They run in registers on the output tile of the matmul primitive, at the
// cost of about one memory pass; oneDNN's gemm-based convolutions run such chains in a reference
// loop (2.5x the convolution's own time, measured), so convolutions fuse the bias only.
dnnl::primitive_attr call_attr(bool relu) {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  if (relu) {
    const float tiny = std::numeric_limits<float>::denorm_min();
    dnnl::post_ops ops;
    ops.append_eltwise(1.f, dnnl::algorithm::eltwise_elu, tiny, 0.f);
    ops.append_eltwise(1.f, dnnl::algorithm::eltwise_relu, tiny, 0.f);
    ops.append_eltwise(1.f, dnnl::algorithm::eltwise_linear, 1.f, 0.f);
    attr.set_post_ops(ops);
  }
  return attr;
}

// ", A transposed": which operands a matrix product reads through its transpose flag.
std::string transposes_text(std::array<bool, 2> transposed) {
  if (transposed[0] && transposed[1]) return ", A and B transposed";
  return transposed[0] ? ", A transposed" : transposed[1] ? ", B transposed" : "";
}

// " + bias + relu": what an epilogue adds to a call's description.
std::string epilogue_text(const codegen::Epilogue* e) {
  if (!e) return "";
  return std::string(e->bias.defined() ? " + bias" : "") + (e->relu ? " + relu" : "");
}

DnnlCall::DnnlCall(std::string what, const dnnl::primitive_desc& pd, const Slots& slots)
    : what_(std::move(what) + ", " + pd.impl_info_str()) {
  std::vector<std::pair<int, memory>> bound;  // the primitive's arguments
  std::vector<Step> before, after;
  std::string reordered;
  for (std::size_t i = 0; i < slots.size(); ++i) {
    const auto& [arg, plain_md] = slots[i];
    user_.emplace_back(plain_md, cpu_engine(), static_cast<void*>(DNNL_MEMORY_NONE));
    memory::desc wanted = pd.query_md(dnnl::query::exec_arg_md, arg);
    if (wanted == plain_md) {
      bound.push_back({arg, user_.back()});
      continue;
    }
    memory inner(wanted, cpu_engine());  // allocated here, once
    bound.push_back({arg, inner});
    bool input = i + 1 < slots.size();
    (input ? before : after).push_back(input ? reorder_step(user_.back(), inner) : reorder_step(inner, user_.back()));
    reordered += std::string(reordered.empty() ? "" : ", ") + arg_name(arg);
  }
  if (!reordered.empty()) what_ += ", blocked (reorders " + reordered + ")";
  steps_ = std::move(before);
  steps_.push_back({dnnl::primitive(pd), pd.scratchpad_desc(), bound, {}});
  for (Step& s : after) steps_.push_back(std::move(s));
  bind_scratchpad();
}

void DnnlCall::run(char* const* p) {
  // The memories' handles, the blocked buffers and the scratchpad belong to the call, so
  // concurrent calls of one program take turns here (other steps still run in parallel).
  std::lock_guard lock(mutex_);
  for (std::size_t i = 0; i < user_.size(); ++i) check(dnnl_memory_set_data_handle_v2(user_[i].get(), p[i], nullptr));
  // The C entry point takes the prebuilt argument arrays; the C++ one builds a map per call.
  for (Step& s : steps_)
    check(
        dnnl_primitive_execute(s.primitive.get(), cpu_stream().get(), static_cast<int>(s.args.size()), s.args.data()));
  check(dnnl_stream_wait(cpu_stream().get()));
}

DnnlCall::Step DnnlCall::reorder_step(const memory& from, const memory& to) {
  dnnl::reorder::primitive_desc pd(cpu_engine(), from.get_desc(), cpu_engine(), to.get_desc(), call_attr());
  return {dnnl::reorder(pd), pd.scratchpad_desc(), {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}}, {}};
}

// One scratchpad, as large as the largest step's, for the steps run one after another.
void DnnlCall::bind_scratchpad() {
  std::size_t largest = 0;
  for (const Step& s : steps_) largest = std::max(largest, s.scratch_md.get_size());
  if (largest > 0)
    scratchpad_ =
        memory({{static_cast<memory::dim>(largest)}, memory::data_type::u8, memory::format_tag::a}, cpu_engine());
  for (Step& s : steps_) {
    for (const auto& [arg, m] : s.memories) s.args.push_back({arg, m.get()});
    if (s.scratch_md.get_size() > 0) s.args.push_back({DNNL_ARG_SCRATCHPAD, scratchpad_.get()});
  }
}

const char* DnnlCall::arg_name(int arg) {
  switch (arg) {
    case DNNL_ARG_SRC: return "src";
    case DNNL_ARG_WEIGHTS: return "weights";
    case DNNL_ARG_DST: return "dst";
    case DNNL_ARG_DIFF_SRC: return "diff_src";
    case DNNL_ARG_DIFF_WEIGHTS: return "diff_weights";
    case DNNL_ARG_DIFF_DST: return "diff_dst";
    default: return "argument";
  }
}

void DnnlCall::check(dnnl_status_t status) const {
  if (status != dnnl_success)
    throw std::runtime_error(what_ + " failed (oneDNN status " + std::to_string(status) + ")");
}

}  // namespace symx::runtime::detail
