// Host CUDA build: simt_cub.h.
#include "model/cuda/testing/simt_cub.h"
