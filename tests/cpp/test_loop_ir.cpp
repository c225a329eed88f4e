// The loop-nest kernel IR (src/codegen/loop_ir.hpp): the lowering and scheduling of small kernels,
// checked through the IR's text form and the C++ the emitter spells from it, against listings
// worked out by hand from the rules of lower() and schedule.cpp.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "codegen/compiler.hpp"
#include "codegen/kernel.hpp"
#include "codegen/loop_ir.hpp"
#include "codegen/schedule.hpp"
#include "passes/passes.hpp"
#include "runtime/library_calls.hpp"
#include "symx/function.hpp"
#include "symx/ops.hpp"
#include "test_util.hpp"

namespace sx = symx;
namespace cg = symx::codegen;

namespace {

// The scheduled IR of the only kernel of the program computing `root`, named "k".
cg::ir::LoopKernel only_kernel(const sx::Tensor& root) {
  cg::FusionPlan plan = cg::plan_fusion({root}, symx::runtime::library_capabilities());
  EXPECT_EQ(plan.kernels.size(), 1u);
  cg::Kernel k = plan.kernels.at(0);
  k.name = "k";
  return cg::ir::build(k);
}

// The kernel's C++ after its buffer pointers (the lines every kernel starts with).
std::string body_of(const std::string& source) {
  std::size_t at = source.find("b[");
  at = source.find("out = reinterpret_cast", at);
  return source.substr(source.find('\n', at) + 1);
}

}  // namespace

TEST(LoopIr, ElementwiseWithBroadcastVectorizesTheRow) {
  auto x = sx::placeholder({2, 3}, sx::f32, "x");
  auto y = sx::placeholder({3}, sx::f32, "y");
  auto k = only_kernel(sx::exp(x) + y);
  EXPECT_EQ(cg::ir::to_text(k),
            "kernel k(in0: float32[2,3], in1: float32[3], out: float32[2,3]):\n"
            "  for o < 2 parallel(static, work 6 > 32768):\n"
            "    q = o / 1\n"
            "    i0 = (q / 1) % 2\n"
            "    for j < 3 vector:\n"
            "      v0: float32 = exp<float32>(in0[i0 * 3 + j])\n"
            "      v1: float32 = add<float32>(v0, in1[j])\n"
            "      out[q * 3 + j] = v1\n");
  const std::string source = cg::ir::emit_kernel(k);
  EXPECT_EQ(source.substr(0, source.find('\n') + 1), "extern \"C\" void k(char* const* b) {\n");
  EXPECT_NE(source.find("  const float* __restrict in1 = reinterpret_cast<const float*>(b[1]);\n"), std::string::npos);
  EXPECT_EQ(body_of(source),
            "  for (std::int64_t o = 0; o < 2; ++o) {\n"
            "    const std::int64_t q = o / 1;\n"
            "    const std::int64_t i0 = (q / 1) % 2;\n"
            "    #pragma omp simd\n"
            "    for (std::int64_t j = 0; j < 3; ++j) {\n"
            "      const float v0 = symx_kernel::exp(in0[i0 * 3 + j]);\n"
            "      const float v1 = static_cast<float>(v0 + in1[j]);\n"
            "      out[q * 3 + j] = v1;\n"
            "    }\n"
            "  }\n"
            "}\n");
}

TEST(LoopIr, RowMaxIsAVectorReductionWithANanFlag) {
  auto x = sx::placeholder({4, 5}, sx::f32, "x");
  auto k = only_kernel(sx::max(x, {1}));
  EXPECT_EQ(cg::ir::to_text(k),
            "kernel k(in0: float32[4,5], out: float32[4]):\n"
            "  for o < 1 parallel(static, work 20 > 32768):\n"
            "    q = o / 1\n"
            "    for j < 4:\n"
            "      acc0: max in float32 -> float32, nan flag nan1\n"
            "      for r2 < 5 vector reduce(max acc0, or nan1):\n"
            "        e3: float32 = float32(in0[j * 5 + r2])\n"
            "        acc0 <- e3\n"
            "      out[q * 4 + j] = result(acc0)\n");
  EXPECT_EQ(body_of(cg::ir::emit_kernel(k)),
            "  for (std::int64_t o = 0; o < 1; ++o) {\n"
            "    const std::int64_t q = o / 1;\n"
            "    for (std::int64_t j = 0; j < 4; ++j) {\n"
            "      float acc0 = symx_kernel::lowest<float>();\n"
            "      int nan1 = 0;\n"
            "      #pragma omp simd reduction(max : acc0) reduction(| : nan1)\n"
            "      for (std::int64_t r2 = 0; r2 < 5; ++r2) {\n"
            "        const float e3 = static_cast<float>(in0[j * 5 + r2]);\n"
            "        acc0 = e3 > acc0 ? e3 : acc0;\n"
            "        nan1 |= (e3 != e3);\n"
            "      }\n"
            "      out[q * 4 + j] = (nan1 ? std::numeric_limits<float>::quiet_NaN() : acc0);\n"
            "    }\n"
            "  }\n"
            "}\n");
}

TEST(LoopIr, ColumnSumHoldsABlockOfAccumulators) {
  auto x = sx::placeholder({32, 20}, sx::f32, "x");
  auto k = only_kernel(sx::sum(x, {0}));
  EXPECT_EQ(cg::ir::to_text(k),
            "kernel k(in0: float32[32,20], out: float32[20]):\n"
            "  for o < 1 parallel(static, work 640 > 32768):\n"
            "    q = o / 1\n"
            "    acc[20]: sum in float64 -> float32\n"
            "    for j < 20:\n"
            "      reset acc[j]\n"
            "    for r0 < 32:\n"
            "      for j < 20 vector:\n"
            "        v0: float64 = float64(in0[r0 * 20 + j])\n"
            "        acc[j] <- v0\n"
            "    for j < 20:\n"
            "      out[q * 20 + j] = result(acc[j])\n");
  EXPECT_EQ(body_of(cg::ir::emit_kernel(k)),
            "  for (std::int64_t o = 0; o < 1; ++o) {\n"
            "    const std::int64_t q = o / 1;\n"
            "    double acc[20];\n"
            "    for (std::int64_t j = 0; j < 20; ++j) {\n"
            "      acc[j] = static_cast<double>(0);\n"
            "    }\n"
            "    for (std::int64_t r0 = 0; r0 < 32; ++r0) {\n"
            "      #pragma omp simd\n"
            "      for (std::int64_t j = 0; j < 20; ++j) {\n"
            "        const double v0 = static_cast<double>(in0[r0 * 20 + j]);\n"
            "        acc[j] += v0;\n"
            "      }\n"
            "    }\n"
            "    for (std::int64_t j = 0; j < 20; ++j) out[q * 20 + j] = static_cast<float>(acc[j]);\n"
            "  }\n"
            "}\n");
}

TEST(LoopIr, WideColumnReductionIsSplitIntoBlocks) {
  // 300 columns: blocks of 128, 128 and 44, each an iteration of the parallel loop.
  auto x = sx::placeholder({6, 300}, sx::f32, "x");
  auto k = only_kernel(sx::min(x, {0}));
  EXPECT_EQ(cg::ir::to_text(k),
            "kernel k(in0: float32[6,300], out: float32[300]):\n"
            "  for o < 3 parallel(static, work 1800 > 32768):\n"
            "    q = o / 3\n"
            "    c = o % 3\n"
            "    acc[128]: min in float32 -> float32, nan flag nan\n"
            "    for j < (c + 1 < 3 ? 128 : 44):\n"
            "      reset acc[j]\n"
            "    for r0 < 6:\n"
            "      for j < (c + 1 < 3 ? 128 : 44) vector:\n"
            "        v0: float32 = float32(in0[r0 * 300 + (c * 128 + j)])\n"
            "        acc[j] <- v0\n"
            "    for j < (c + 1 < 3 ? 128 : 44):\n"
            "      out[q * 300 + c * 128 + j] = result(acc[j])\n");
}

TEST(LoopIr, FewLongRowsAreChunked) {
  // 2 rows of 20000: 5 chunks of 4096 per row, the last of 20000 - 4 * 4096 = 3616.
  auto x = sx::placeholder({2, 20000}, sx::f32, "x");
  auto k = only_kernel(sx::exp(x));
  EXPECT_EQ(cg::ir::to_text(k),
            "kernel k(in0: float32[2,20000], out: float32[2,20000]):\n"
            "  for o < 10 parallel(static, work 40000 > 32768):\n"
            "    q = o / 5\n"
            "    c = o % 5\n"
            "    i0 = (q / 1) % 2\n"
            "    for j < (c + 1 < 5 ? 4096 : 3616) vector:\n"
            "      v0: float32 = exp<float32>(in0[i0 * 20000 + (c * 4096 + j)])\n"
            "      out[q * 20000 + c * 4096 + j] = v0\n");
  EXPECT_NE(cg::ir::emit_kernel(k).find("    for (std::int64_t j = 0; j < (c + 1 < 5 ? 4096 : 3616); ++j) {\n"
                                        "      const float v0 = symx_kernel::exp(in0[i0 * 20000 + (c * 4096 + j)]);\n"
                                        "      out[q * 20000 + c * 4096 + j] = v0;\n"),
            std::string::npos);
}

TEST(LoopIr, LargeLoopsAreHandedOutDynamically) {
  // 1024 rows of 1024: pieces of 1024 * 65536 / 2^20 = 64 rows.
  auto x = sx::placeholder({1024, 1024}, sx::f32, "x");
  auto k = only_kernel(sx::exp(x));
  const std::string text = cg::ir::to_text(k);
  EXPECT_NE(text.find("\n  for o < 1024 parallel(dynamic 64, work 1048576 > 32768):\n"), std::string::npos) << text;
  EXPECT_NE(cg::ir::emit_kernel(k).find("\n  #pragma omp parallel for schedule(dynamic, 64)\n"), std::string::npos);
  // One element fewer: the static split.
  auto small = only_kernel(sx::exp(sx::placeholder({1023, 1024}, sx::f32, "x")));
  EXPECT_NE(cg::ir::to_text(small).find("\n  for o < 1023 parallel(static, work 1047552 > 32768):\n"),
            std::string::npos);
}

TEST(LoopIr, SoftmaxCrossEntropyIsOneRowKernelCall) {
  auto logits = sx::placeholder({8, 10}, sx::f64, "logits");
  auto labels = sx::placeholder({8, 10}, sx::f64, "labels");
  auto k = only_kernel(sx::nn::softmax_cross_entropy(logits, labels));
  EXPECT_EQ(cg::ir::to_text(k),
            "kernel k(in0: float64[8,10], in1: float64[8,10], out: float64[8]):\n"
            "  call softmax_xent<float64, contiguous>(in0, in1, out, 8, 10, 1)\n");
  EXPECT_EQ(body_of(cg::ir::emit_kernel(k)),
            "  symx_kernel::softmax_xent<double, true>(in0, in1, out, 8, 10, 1);\n}\n");
}

TEST(LoopIr, EmitSourceIsThePreludeThenEachKernel) {
  auto x = sx::placeholder({3}, sx::i32, "x");
  cg::FusionPlan plan = cg::plan_fusion({x * 2}, symx::runtime::library_capabilities());
  const cg::EmittedPlan emitted = cg::emit_plan(plan);
  EXPECT_EQ(emitted.source, cg::emit_source(plan));
  EXPECT_EQ(emitted.source.rfind(cg::ir::emit_kernel(cg::ir::build(plan.kernels.at(0))) + "\n"),
            emitted.source.size() - cg::ir::emit_kernel(cg::ir::build(plan.kernels.at(0))).size() - 1);
  EXPECT_NE(emitted.ir_text.find(" = multiply<int32>(in0[j], 2:int32)\n"), std::string::npos) << emitted.ir_text;
}

TEST(LoopIr, DumpDirHoldsTheIrNextToTheSource) {
  sx::testing::TempDir dir("symx-loop-ir");
  sx::testing::SavedEnvironment saved{"SYMX_DUMP_DIR"};
  ::setenv("SYMX_DUMP_DIR", dir.path.c_str(), 1);
  cg::clear_memory_cache_for_testing();  // a memory hit would not be dumped
  auto x = sx::placeholder({5, 7}, sx::f64, "x");
  auto y = sx::sum(sx::square(x), {1});
  auto f = sx::function({x}, {y}, {}, {sx::Backend::compiled});
  f({sx::testing::random_array({5, 7}, -1, 1, 4, sx::f64)});
  // What Program emits for it: the optimized graph, cut into kernels.
  const cg::EmittedPlan emitted =
      cg::emit_plan(cg::plan_fusion(symx::passes::optimize({y}), symx::runtime::library_capabilities()));
  const std::string key = cg::sha256_hex("");  // only for its length
  int found = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path)) {
    if (entry.path().extension() != ".ir") continue;
    ++found;
    EXPECT_EQ(entry.path().stem().string().size(), key.size());
    EXPECT_EQ(sx::testing::read_bytes(entry.path().string()), emitted.ir_text);
    std::filesystem::path source = entry.path();
    EXPECT_EQ(sx::testing::read_bytes(source.replace_extension(".cpp").string()), emitted.source);
  }
  EXPECT_EQ(found, 1);
}
