#include "backend/step_graphs.h"

#include <cstdio>
#include <exception>

#include "common/error.h"
#ifdef BABYBERTA_HAVE_CUDA
#include "backend/cuda/device.h"
#endif

namespace bb {

StepGraphs::StepGraphs(Device device, bool enabled) : enabled_(enabled && device == Device::cuda) {}

StepGraphs::~StepGraphs() { clear(); }

void StepGraphs::clear() {
#ifdef BABYBERTA_HAVE_CUDA
  for (auto& [key, graph] : graphs_) cuda::destroy_graph(graph);
#endif
  graphs_.clear();
}

void StepGraphs::run(uint64_t key, const std::function<void()>& body) {
  if (!enabled_) return body();
#ifdef BABYBERTA_HAVE_CUDA
  if (cuda::workspace_generation() != generation_) {  // a workspace a graph uses has moved
    clear();
    generation_ = cuda::workspace_generation();
  }
  if (auto it = graphs_.find(key); it != graphs_.end()) return cuda::launch_graph(it->second);
  if (seen_[key]++ == 0) return body();  // eager: sizes the workspaces for this shape
  void* graph = nullptr;
  try {
    cuda::begin_capture();
    body();
    graph = cuda::end_capture();
  } catch (const std::exception& e) {
    cuda::abort_capture();
    std::fprintf(stderr,
                 "babyberta: warning: CUDA graph capture failed (%s); steps run without graphs\n",
                 e.what());
    enabled_ = false;
    clear();
    return body();
  }
  if (cuda::workspace_generation() != generation_) {  // the body grew a workspace while captured
    cuda::destroy_graph(graph);
    return body();
  }
  graphs_[key] = graph;
  cuda::launch_graph(graph);
#else
  (void)key;
  fail("internal: CUDA graphs in a build without CUDA");
#endif
}

}  // namespace bb
