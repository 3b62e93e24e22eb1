// A WordPiece vocabulary: vocab.txt as released with BERT.
//
// One token per line; a token is the line without its line ending ("\n" or
// "\r\n"), and its id is the 0-based line number (google-research/bert
// load_vocab, HF BertTokenizer). A final line without a newline still counts.
// Refused with an error naming the file: an empty file, an empty line, a
// line that is not valid UTF-8, and a token that appears twice (both line
// numbers given).
//
// content_hash() is FNV-1a 64 over each token followed by "\n"; for a file
// with "\n" line endings that is the hash of the file's bytes. Artifacts
// built from a vocabulary (shards, checkpoints) store it and refuse a
// mismatch.
#ifndef BERTLAB_TASKS_VOCAB_H_
#define BERTLAB_TASKS_VOCAB_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/fnv1a.h"

namespace bertlab {

class Vocab {
 public:
  // Reads and parses the file at `path`.
  static absl::StatusOr<Vocab> LoadFile(const std::string& path);

  // Parses the contents of a vocab.txt; `source` names it in messages.
  static absl::StatusOr<Vocab> Parse(absl::string_view contents,
                                     absl::string_view source);

  // Token i gets id i; the same checks as Parse.
  static absl::StatusOr<Vocab> FromTokens(std::vector<std::string> tokens,
                                          absl::string_view source);

  int size() const { return static_cast<int>(tokens_.size()); }

  // The id of `token`, or nullopt when the vocabulary lacks it.
  std::optional<int> TokenToId(absl::string_view token) const;
  bool Contains(absl::string_view token) const;

  // The token with id `id`; CHECKs 0 <= id < size().
  const std::string& IdToToken(int id) const;

  const std::vector<std::string>& tokens() const { return tokens_; }

  // Where the vocabulary came from (a path, or what the caller named it).
  const std::string& source() const { return source_; }

  uint64_t content_hash() const { return content_hash_; }
  // content_hash() as 16 lowercase hex digits.
  std::string ContentHashHex() const;

 private:
  Vocab() = default;

  std::string source_;
  std::vector<std::string> tokens_;
  absl::flat_hash_map<std::string, int> ids_;
  uint64_t content_hash_ = 0;
};

}  // namespace bertlab

#endif  // BERTLAB_TASKS_VOCAB_H_
