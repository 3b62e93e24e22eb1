// The float Gemm of gemm.h through oneDNN's f32 matmul primitive (oneDNN 2.6,
// Debian's libdnnl): C = alpha * op(A) * op(B) + beta * C, row-major, with
// the same transposes, leading dimensions and alpha / beta as cblas_sgemm.
// Gemm<float> calls it when the engine is CpuGemmEngine::kOneDnn
// (cpu_gemm_engine.h) and splits large products over ParallelFor around it,
// exactly as it does around OpenBLAS.
//
// oneDNN runs single-threaded here, for the reason OpenBLAS does
// (common/parallel.h): Debian builds it on OpenMP, whose workers would spin
// beside the pool's, so every thread that calls it first sets its own
// OpenMP thread count to 1 (omp_set_num_threads acts on the calling thread
// only, and nothing else in bertlab uses OpenMP).
//
// A matmul primitive is made once per (m, n, k, transposes, lda, ldb, ldc,
// alpha == 1, beta == 0) and kept for the life of the process in a cache
// shared by all threads; each thread keeps its own stream and memory
// objects for the primitives it runs, so a call after the first on a thread
// takes no lock and allocates nothing. alpha != 1 is a runtime output scale;
// beta != 0 is a sum post-op with scale 1, C being first multiplied by beta
// here when beta != 1 (as OpenBLAS does); beta == 0 has no sum, so C is
// written without being read (NaN or garbage there does not propagate).
//
// Results are bit-identical run to run on one machine (oneDNN picks its
// kernels by the CPU's instruction set, and one thread sums each element in
// a fixed order); they differ from OpenBLAS's in the last bits.
//
//   A: (M, K) or, transposed, stored as (K, M), leading dimension lda
//   B: (K, N) or, transposed, stored as (N, K), leading dimension ldb
//   C: (M, N), leading dimension ldc
#ifndef BERTLAB_MODEL_OPS_GEMM_ONEDNN_H_
#define BERTLAB_MODEL_OPS_GEMM_ONEDNN_H_

#include <cstdint>

#include "model/ops/gemm.h"

namespace bertlab {

// One product on the calling thread. m, n, k >= 1 (Gemm handles empty
// products before calling it); lda, ldb, ldc at least the stored rows'
// lengths.
void OneDnnGemm(Transpose transpose_a, Transpose transpose_b, int64_t m,
                int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
                const float* b, int64_t ldb, float beta, float* c, int64_t ldc);

// The same product with A and B in bfloat16 (their bits, as common/half.h's
// FloatToBf16 gives them) and C in float: oneDNN's bf16 matmul, which sums
// in FP32. Gemm<float> rounds its operands and calls this inside a BF16
// precision scope (cpu_gemm_engine.h). Needs OneDnnBf16MatmulAvailable() (dies
// naming the shape otherwise); lda and ldb count bf16 elements.
void OneDnnBf16Gemm(Transpose transpose_a, Transpose transpose_b, int64_t m,
                    int64_t n, int64_t k, float alpha, const uint16_t* a,
                    int64_t lda, const uint16_t* b, int64_t ldb, float beta,
                    float* c, int64_t ldc);

// How many matmul primitives this process has made (the cache's misses):
// the same product twice makes one.
int64_t OneDnnMatmulPrimitivesCreated();

// Whether oneDNN can make a bf16 matmul (bf16 A and B, f32 C, FP32
// accumulation) on this CPU. oneDNN 2.6 needs AVX-512 (avx512_core) for it,
// so on an AVX2-only CPU this is false. Makes no primitive.
bool OneDnnBf16MatmulAvailable();

}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_GEMM_ONEDNN_H_
