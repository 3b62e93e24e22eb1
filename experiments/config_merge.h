// Merging experiment.proto messages the way the schema means: a variant's
// overrides onto its base, an included file under the fields that include
// it (experiments/config_references.h), and the schema's defaults filled in.
#ifndef BERTLAB_EXPERIMENTS_CONFIG_MERGE_H_
#define BERTLAB_EXPERIMENTS_CONFIG_MERGE_H_

#include "google/protobuf/message.h"

namespace bertlab {
namespace experiments {

// Merges `overrides` into `target` (the same message type) the way a
// variant overrides its base: every field set in `overrides` wins, singular
// messages merge field by field (recursively), and a repeated field set in
// `overrides` REPLACES the target's list. protobuf's MergeFrom would append
// to it instead (base phases + variant phases), which is never what a
// variant means. Setting one member of a oneof clears the target's other
// member.
void MergeOverrides(const google::protobuf::Message& overrides,
                    google::protobuf::Message* target);

// Sets every unset field that has a [default = ...] in the schema to that
// default, creating unset sub-messages on the way (but not oneof members),
// so the message spells out every number it runs with. For a complete spec
// (a resolved run), never for overrides.
void FillDefaults(google::protobuf::Message* message);

}  // namespace experiments
}  // namespace bertlab

#endif  // BERTLAB_EXPERIMENTS_CONFIG_MERGE_H_
