// The fused attention kernels' CPU reference; see flash_attention_reference.h.
#include "model/ops/flash_attention_reference.h"

#include <algorithm>
#include <cmath>

namespace bertlab {
namespace {

std::vector<double> ReferenceLogSumExp(const AttentionProblem& problem,
                                       const std::vector<double>& qkv) {
  const AttentionShape& s = problem.shape;
  const int64_t t = s.seq_len, width = 3 * s.Hidden();
  std::vector<double> lse;
  for (int64_t b = 0; b < s.batch; ++b) {
    const int32_t* key_mask = problem.KeyMask(b);
    for (int64_t a = 0; a < s.heads; ++a) {
      for (int64_t i = 0; i < t; ++i) {
        std::vector<double> scores(static_cast<size_t>(t));
        std::vector<bool> masked(static_cast<size_t>(t));
        bool any_unmasked = false;
        for (int64_t j = 0; j < t; ++j) {
          double dot = 0.0;
          for (int64_t x = 0; x < s.head_dim; ++x) {
            dot += qkv[(b * t + i) * width + a * s.head_dim + x] *
                   qkv[(b * t + j) * width + s.Hidden() + a * s.head_dim + x];
          }
          scores[j] = dot / std::sqrt(static_cast<double>(s.head_dim));
          masked[j] = (key_mask != nullptr && key_mask[j] == 0) ||
                      (problem.options.causal && j > i);
          any_unmasked |= !masked[j];
        }
        for (int64_t j = 0; j < t; ++j) {
          if (masked[j] && any_unmasked) {
            scores[j] += problem.options.mask_value;
          }
        }
        const double max = *std::max_element(scores.begin(), scores.end());
        double sum = 0.0;
        for (double score : scores) sum += std::exp(score - max);
        lse.push_back(max + std::log(sum));
      }
    }
  }
  return lse;
}

}  // namespace

std::vector<int32_t> PaddingMask(const AttentionShape& shape) {
  std::vector<int32_t> mask(static_cast<size_t>(shape.batch * shape.seq_len),
                            1);
  for (int64_t b = 1; b < shape.batch; ++b) {
    for (int64_t j = 0; j < shape.seq_len; ++j) {
      const bool padded = b > 1 || j < 5 || j >= shape.seq_len - 7;
      if (padded) mask[b * shape.seq_len + j] = 0;
    }
  }
  return mask;
}

AttentionReference ComputeAttentionReference(const AttentionProblem& problem,
                                             const std::vector<float>& qkv,
                                             const std::vector<float>& d_out) {
  const AttentionShape& s = problem.shape;
  const std::vector<double> qkv_double(qkv.begin(), qkv.end());
  const std::vector<double> d_out_double(d_out.begin(), d_out.end());
  AttentionReference reference;
  reference.out.resize(static_cast<size_t>(s.OutSize()));
  std::vector<double> probs(static_cast<size_t>(s.ProbsSize()));
  AttentionForward<double>(reference.out.data(), probs.data(),
                           qkv_double.data(), problem.MaskData(), s.batch,
                           s.seq_len, s.heads, s.head_dim, problem.options);
  reference.d_qkv.resize(static_cast<size_t>(s.QkvSize()));
  AttentionBackward<double>(reference.d_qkv.data(), d_out_double.data(),
                            qkv_double.data(), probs.data(), problem.MaskData(),
                            s.batch, s.seq_len, s.heads, s.head_dim,
                            problem.options);
  reference.logsumexp = ReferenceLogSumExp(problem, qkv_double);
  return reference;
}

}  // namespace bertlab
