// The compile pipeline, one step a line: each step is a function of the layer that owns it.
#include "function/compile.hpp"

#include "codegen/compiler.hpp"
#include "codegen/kernel.hpp"
#include "passes/passes.hpp"
#include "runtime/library_calls.hpp"

namespace symx::detail {

std::unique_ptr<runtime::Program> compile(const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs,
                                          const Updates& updates) {
  runtime::CompiledGraph graph;
  graph.inputs = inputs;
  graph.outputs = outputs;
  graph.updates = updates;
  // 1. The roots: the outputs, then the new value of each updated variable.
  std::vector<Tensor> roots = outputs;
  for (const auto& [var, value] : updates) roots.push_back(value);
  // 2. Rewrites: dead code, common subexpressions, constants, algebra, numerical stability.
  graph.roots = passes::optimize(roots);
  // 3. Fusion: the steps (kernels, library calls, aliases, reference evaluations) and each kernel's
  //    nodes; which ops go to a library is the runtime's answer.
  graph.plan = codegen::plan_fusion(graph.roots, runtime::library_capabilities());
  // 4. Updates written in place by their kernel (this changes the kernel's code, so before emitting).
  graph.in_place = runtime::choose_in_place_updates(graph.plan, graph.roots, updates);
  // 5. The kernels' C++ source (and their loop-nest IR, for SYMX_DUMP_DIR), compiled (or found in the
  //    disk cache) and loaded.
  if (!graph.plan.kernels.empty()) {
    codegen::EmittedPlan emitted = codegen::emit_plan(graph.plan);
    codegen::CompileOptions options;
    options.ir_text = std::move(emitted.ir_text);
    graph.library = codegen::compile_and_load(emitted.source, options);
  }
  // 6. The program: buffers planned by liveness, each step bound to its kernel or library call.
  return std::make_unique<runtime::Program>(std::move(graph));
}

namespace {
// The compiler of loop bodies and branches (runtime/library_loops.cpp): a region is compiled as a
// function of its params, without updates.
std::unique_ptr<runtime::Program> compile_region(const std::vector<Tensor>& params,
                                                 const std::vector<Tensor>& results) {
  return compile(params, results, {});
}
const bool region_compiler_installed = [] {
  runtime::set_region_compiler(compile_region);
  return true;
}();
}  // namespace

}  // namespace symx::detail
