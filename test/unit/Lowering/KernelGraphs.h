// Representative tg graphs for the generic kernel generator: every op kind,
// every element type, broadcasting, layout folding and odd shapes.
#ifndef TGC_TEST_UNIT_LOWERING_KERNELGRAPHS_H
#define TGC_TEST_UNIT_LOWERING_KERNELGRAPHS_H

#include <string>
#include <vector>

namespace tgc::test {

struct KernelGraph {
  std::string name;
  std::string mlir;
};

/// The graphs, each a module of one or more functions.
std::vector<KernelGraph> kernelGraphs();

} // namespace tgc::test

#endif
