// Host CUDA build: the SIMT emulator's bf16.
#include "model/cuda/testing/simt_emulator.h"
