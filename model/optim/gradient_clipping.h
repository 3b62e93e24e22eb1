// Global-norm gradient clipping, as tf.clip_by_global_norm (which
// google-research/bert applies with clip_norm 1.0 before every update):
//
//   norm  = sqrt(sum over every gradient element g of g^2)
//   scale = clip_norm / max(norm, clip_norm)       (1 when norm <= clip_norm)
//   g    *= scale
//
// (torch.nn.utils.clip_grad_norm_ divides by norm + 1e-6 instead, a 1e-6
// relative difference that we do not copy.)
//
// The norm is a deterministic reduction (ParallelReduce, common/parallel.h):
// the buffer is cut into chunks of kGlobalNormChunk elements, a constant
// independent of the thread count; each chunk's sum of squares is accumulated
// in double on one thread, and the per-chunk partials are added in chunk
// order. The result is therefore bit-identical for any thread count.
//
// A non-finite gradient (inf or NaN anywhere) makes the norm non-finite. The
// gradients are then left untouched and the result says so; the caller must
// not apply the update (TF would turn every gradient into NaN). Overflow of
// the double sum of squares, possible only for double gradients above about
// 1e150, is reported the same way.
#ifndef BERTLAB_MODEL_OPTIM_GRADIENT_CLIPPING_H_
#define BERTLAB_MODEL_OPTIM_GRADIENT_CLIPPING_H_

#include <cmath>
#include <cstdint>

namespace bertlab {

// Elements per partial sum of GlobalNorm.
inline constexpr int64_t kGlobalNormChunk = 1 << 14;

// sqrt(sum of values[i]^2), accumulated in double as described above.
// values: (size)
template <typename T>
double GlobalNorm(const T* values, int64_t size);

struct ClipResult {
  double global_norm = 0;  // before clipping; inf or NaN if not finite
  double scale = 1;        // what the gradients were multiplied by
  bool finite() const { return std::isfinite(global_norm); }
  bool clipped() const { return scale != 1; }
};

// Scales grads by clip_norm / max(norm, clip_norm) when the norm is finite
// (each element is multiplied by the scale rounded to T; nothing is written
// when scale == 1) and returns the pre-clip norm. clip_norm finite and > 0
// (CHECKed). grads: (size)
template <typename T>
[[nodiscard]] ClipResult ClipByGlobalNorm(double clip_norm, int64_t size,
                                          T* grads);

}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPTIM_GRADIENT_CLIPPING_H_
