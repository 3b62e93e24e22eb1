#include "model/optim/adamw.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "common/check.h"
#include "common/parallel.h"
#include "model/optim/adamw_kernel.h"
#include "model/optim/adamw_simd.h"

namespace bertlab {
namespace {

// Elements per ParallelFor chunk at least: the update is a few flops per
// element, so smaller chunks cost more in scheduling than they save.
constexpr int64_t kMinChunk = 1 << 13;

absl::Status FieldError(absl::string_view field, absl::string_view must,
                        double value) {
  return absl::InvalidArgumentError(
      absl::StrCat("AdamW ", field, " must be ", must, ", got ", value));
}

}  // namespace

absl::Status ValidateAdamWOptions(const AdamWOptions& options) {
  if (!(options.beta1 >= 0 && options.beta1 < 1)) {
    return FieldError("beta1", "in [0, 1)", options.beta1);
  }
  if (!(options.beta2 >= 0 && options.beta2 < 1)) {
    return FieldError("beta2", "in [0, 1)", options.beta2);
  }
  if (!(std::isfinite(options.epsilon) && options.epsilon > 0)) {
    return FieldError("epsilon", "finite and positive", options.epsilon);
  }
  if (!(std::isfinite(options.weight_decay) && options.weight_decay >= 0)) {
    return FieldError("weight_decay", "finite and non-negative",
                      options.weight_decay);
  }
  return absl::OkStatus();
}

std::vector<WeightDecaySpan> WeightDecaySpans(const ParameterLayout& layout) {
  std::vector<WeightDecaySpan> spans;
  for (const ParameterInfo& info : layout.parameters()) {
    if (info.size == 0) continue;
    const bool decay = !ExcludedFromWeightDecay(info.name);
    if (!spans.empty() && spans.back().decay == decay) {
      CHECK_EQ(spans.back().end, info.offset) << info.name;
      spans.back().end = info.offset + info.size;
    } else {
      CHECK_EQ(spans.empty() ? 0 : spans.back().end, info.offset) << info.name;
      spans.push_back({info.offset, info.offset + info.size, decay});
    }
  }
  return spans;
}

template <typename T>
AdamW<T>::AdamW(const ParameterLayout& layout, const AdamWOptions& options)
    : options_(options),
      decay_spans_(WeightDecaySpans(layout)),
      m_(layout.total_size(), T(0)),
      v_(layout.total_size(), T(0)) {
  const absl::Status valid = ValidateAdamWOptions(options_);
  CHECK(valid.ok()) << valid;
}

template <typename T>
void AdamW<T>::set_step(int64_t step) {
  CHECK_GE(step, 0);
  step_ = step;
}

namespace {

// The update of [begin, end) with the widest build the CPU runs: float in
// the AVX-512 or AVX2 build (bit-identical to the scalar loop), double in
// the scalar loop.
void Update(const adamw_internal::StepConstants& c, double decay, int64_t begin,
            int64_t end, const float* grads, float* m, float* v,
            float* params) {
  static const bool avx512 = AdamWAvx512Available();
  static const bool avx2 = AdamWAvx2Available();
  if (avx512) {
    AdamWUpdateAvx512(c, decay, begin, end, grads, m, v, params);
  } else if (avx2) {
    AdamWUpdateAvx2(c, decay, begin, end, grads, m, v, params);
  } else {
    adamw_internal::UpdateScalar(c, decay, begin, end, grads, m, v, params);
  }
}

void Update(const adamw_internal::StepConstants& c, double decay, int64_t begin,
            int64_t end, const double* grads, double* m, double* v,
            double* params) {
  adamw_internal::UpdateScalar(c, decay, begin, end, grads, m, v, params);
}

}  // namespace

template <typename T>
void AdamW<T>::Step(double lr, const T* grads, T* params) {
  CHECK(std::isfinite(lr) && lr >= 0) << lr;
  const int64_t t = step_ + 1;
  adamw_internal::StepConstants c;
  c.beta1 = options_.beta1;
  c.beta2 = options_.beta2;
  c.one_minus_beta1 = 1.0 - c.beta1;
  c.one_minus_beta2 = 1.0 - c.beta2;
  c.epsilon = options_.epsilon;
  c.lr = lr;
  // Without bias correction the divisors are 1, which divides exactly.
  if (options_.bias_correction) {
    c.m_divisor = 1.0 - std::pow(c.beta1, t);
    c.v_divisor = 1.0 - std::pow(c.beta2, t);
  }
  const double weight_decay = options_.weight_decay;
  T* m = m_.data();
  T* v = v_.data();
  const std::vector<WeightDecaySpan>& spans = decay_spans_;

  ParallelFor(0, size(), kMinChunk, [&](int64_t begin, int64_t end) {
    // The first span that ends after `begin`.
    auto span = std::upper_bound(
        spans.begin(), spans.end(), begin,
        [](int64_t index, const WeightDecaySpan& s) { return index < s.end; });
    for (; span != spans.end() && span->begin < end; ++span) {
      Update(c, span->decay ? weight_decay : 0.0, std::max(begin, span->begin),
             std::min(end, span->end), grads, m, v, params);
    }
  });
  step_ = t;
}

template class AdamW<float>;
template class AdamW<double>;

}  // namespace bertlab
