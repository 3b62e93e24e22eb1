// Host CUDA build: simt_wmma.h.
#include "model/cuda/testing/simt_wmma.h"
