// Host CUDA build: host_cuda_runtime.h.
#include "model/cuda/testing/host_cuda_runtime.h"
