#include "encoder/passes.h"

#include "causal_lm/passes.h"
#include "common/error.h"
#include "encoder/roberta_passes.h"

namespace bb {

template <typename T>
std::unique_ptr<KindPasses<T>> make_kind_passes(const Config& c, const ParamLayout& layout,
                                                const Capacity& cap, Device device) {
  switch (c.kind) {
    case ModelKind::roberta: return std::make_unique<RobertaPasses<T>>(c, layout, cap, device);
    case ModelKind::gpt2: return std::make_unique<CausalLmPasses<T>>(c, layout, cap, device);
    case ModelKind::icl_gpt2: break;
  }
  fail("internal: the ICL kind is no text model (icl/model.h)");
}

template std::unique_ptr<KindPasses<float>> make_kind_passes<float>(const Config&,
                                                                    const ParamLayout&,
                                                                    const Capacity&, Device);
template std::unique_ptr<KindPasses<double>> make_kind_passes<double>(const Config&,
                                                                      const ParamLayout&,
                                                                      const Capacity&, Device);

}  // namespace bb
