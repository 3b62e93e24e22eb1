// Strict text-format parsing of experiment.proto messages, with errors at
// "FILE:LINE:COLUMN" (1-based, bytes as editors count them), moved onto the
// culprit and with a did-you-mean for the mistakes people make most.
//
//   RunSpec spec;
//   ParseInfoTree tree;
//   RETURN_IF_ERROR(ParseTextStrictly(text, "ablations/scales/mini.textproto",
//                                     &spec, &tree));
#ifndef BERTLAB_EXPERIMENTS_CONFIG_TEXT_H_
#define BERTLAB_EXPERIMENTS_CONFIG_TEXT_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/message.h"
#include "google/protobuf/text_format.h"

namespace bertlab {
namespace experiments {

using ParseInfoTree = google::protobuf::TextFormat::ParseInfoTree;

// A position in a text: 0-based line, 0-based byte offset in the line; -1
// when unknown.
struct TextPosition {
  int line = -1;
  int column = -1;
};

std::vector<absl::string_view> Lines(absl::string_view text);

// protobuf's positions are 0-based and count a tab as a move to the next
// multiple of 8; this turns one into a byte offset in `lines`.
TextPosition FromProtobuf(const std::vector<absl::string_view>& lines, int line,
                          int column);

// "source:LINE:COL: " (1-based), or "source: " for an unknown position.
std::string Where(absl::string_view source, const TextPosition& position);

// "; did you mean \"x\"?" for the closest of `candidates` (edit distance at
// most max(2, a third of the typed length)), or "; <what>: a, b, c" when
// none is close.
std::string Suggestion(absl::string_view typed,
                       const std::vector<std::string>& candidates,
                       absl::string_view what);

// Parses `text` into `message` (cleared first) strictly: unknown fields,
// unknown enum values, a singular field given twice, two members of a oneof
// and malformed values are errors, one line each, "source:LINE:COL: ...".
// `tree` (may be null) receives the positions of the fields.
absl::Status ParseTextStrictly(absl::string_view text, absl::string_view source,
                               google::protobuf::Message* message,
                               ParseInfoTree* tree);

}  // namespace experiments
}  // namespace bertlab

#endif  // BERTLAB_EXPERIMENTS_CONFIG_TEXT_H_
