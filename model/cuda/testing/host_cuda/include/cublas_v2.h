// Host CUDA build: host_cublas.h.
#include "model/cuda/testing/host_cublas.h"
