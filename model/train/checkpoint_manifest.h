// The integrity manifest of a checkpoint directory: manifest.json, written
// last, lists every file of the checkpoint with its size and SHA-256, so
// that a changed byte anywhere (a disk error, an edit of trainer_state.json,
// a truncated copy) is found before the checkpoint is trusted.
//
//   {"format": "bertlab.checkpoint_manifest", "version": 1,
//    "files": [{"name": "config.json", "bytes": 512, "sha256": "…"}, …]}
//
// The hashes are of the files as they are on disk after writing (read
// back), not of the bytes meant to be written.
#ifndef BERTLAB_MODEL_TRAIN_CHECKPOINT_MANIFEST_H_
#define BERTLAB_MODEL_TRAIN_CHECKPOINT_MANIFEST_H_

#include <string>
#include <vector>

#include "absl/status/status.h"

namespace bertlab {

inline constexpr char kCheckpointManifestFile[] = "manifest.json";

// Hashes dir/<name> for every name in `files` and writes dir/manifest.json
// atomically.
absl::Status WriteCheckpointManifest(const std::string& dir,
                                     const std::vector<std::string>& files);

// OK when dir/manifest.json is well formed, lists exactly `files` (no more,
// no fewer), and every file has its listed size and SHA-256. Otherwise
// DataLoss naming the file and what differs (NotFound when there is no
// manifest at all).
absl::Status VerifyCheckpointManifest(const std::string& dir,
                                      const std::vector<std::string>& files);

}  // namespace bertlab

#endif  // BERTLAB_MODEL_TRAIN_CHECKPOINT_MANIFEST_H_
