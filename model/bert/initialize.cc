#include "model/bert/initialize.h"

#include <cmath>

#include "common/parallel.h"
#include "common/philox.h"

namespace bertlab {
namespace {

constexpr double kTwoPi = 6.283185307179586;

// The element's k-th standard normal draw: Box-Muller on uniforms
// 2 * (k * size + element) and 2 * (k * size + element) + 1 of the stream.
double StandardNormal(const PhiloxStream& stream, int64_t size, int64_t element,
                      int64_t k) {
  const uint64_t index = 2 * static_cast<uint64_t>(k * size + element);
  // 1 - u is in (0, 1], so the log is finite.
  const double u1 = 1.0 - PhiloxUniform(stream, index);
  const double u2 = PhiloxUniform(stream, index + 1);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(kTwoPi * u2);
}

}  // namespace

template <typename T>
void InitializeParameters(const ParameterLayout& layout, uint64_t seed,
                          T* values) {
  const auto& parameters = layout.parameters();
  for (size_t p = 0; p < parameters.size(); ++p) {
    const ParameterInfo& info = parameters[p];
    const PhiloxStream stream{seed, 0, static_cast<uint32_t>(p)};
    T* out = values + info.offset;
    const Initializer init = info.initializer;
    ParallelFor(0, info.size, 4096, [&](int64_t begin, int64_t end) {
      for (int64_t e = begin; e < end; ++e) {
        switch (init.kind) {
          case Initializer::Kind::kConstant:
            out[e] = static_cast<T>(init.scale);
            break;
          case Initializer::Kind::kUniform:
            out[e] = static_cast<T>(init.scale *
                                    (2.0 * PhiloxUniform(stream, e) - 1.0));
            break;
          case Initializer::Kind::kTruncatedNormal: {
            double z = StandardNormal(stream, info.size, e, 0);
            for (int64_t k = 1; std::abs(z) > 2.0; ++k) {
              z = StandardNormal(stream, info.size, e, k);
            }
            out[e] = static_cast<T>(init.scale * z);
            break;
          }
        }
      }
    });
  }
}

template void InitializeParameters<float>(const ParameterLayout&, uint64_t,
                                          float*);
template void InitializeParameters<double>(const ParameterLayout&, uint64_t,
                                           double*);

}  // namespace bertlab
