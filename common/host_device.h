// BERTLAB_HOST_DEVICE marks small inline functions that CUDA kernels call as
// well as host code: `__host__ __device__` under nvcc, nothing otherwise.
#ifndef BERTLAB_COMMON_HOST_DEVICE_H_
#define BERTLAB_COMMON_HOST_DEVICE_H_

#ifdef __CUDACC__
#define BERTLAB_HOST_DEVICE __host__ __device__
#else
#define BERTLAB_HOST_DEVICE
#endif

#endif  // BERTLAB_COMMON_HOST_DEVICE_H_
