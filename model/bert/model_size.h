// A model size: L layers, H hidden, A heads (the intermediate size is 4H),
// under a name ("L4_H256_A4", or the paper's "base" and "large"). The size
// table (config.h, ModelSizes) and run records (reports/run_records.h) share
// it; a header of its own, without the config's dependencies, so reports
// need nothing else of the model.
#ifndef BERTLAB_MODEL_BERT_MODEL_SIZE_H_
#define BERTLAB_MODEL_BERT_MODEL_SIZE_H_

#include <cstdint>
#include <string>

namespace bertlab {

struct ModelSize {
  std::string name;
  int64_t layers = 0;
  int64_t hidden = 0;
  int64_t heads = 0;
};

}  // namespace bertlab

#endif  // BERTLAB_MODEL_BERT_MODEL_SIZE_H_
