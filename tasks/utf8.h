// UTF-8 decoding that never fails, and encoding.
//
// Text from users and corpora is not always valid UTF-8. DecodeUtf8Lenient
// replaces every ill-formed sequence by U+FFFD following the Unicode
// "maximal subpart" practice (Unicode 15, section 3.9, U+FFFD substitution),
// which is what Python's bytes.decode("utf-8", errors="replace") does: a
// truncated but otherwise valid prefix of a sequence (e.g. E2 82 followed by
// "A") becomes one U+FFFD, and every other offending byte becomes its own
// U+FFFD. Overlong forms, UTF-16 surrogates (ED A0..BF xx) and values above
// U+10FFFF are ill-formed. The BERT tokenizer then drops U+FFFD while
// cleaning text, so its result equals google-research/bert's
// decode("utf-8", "ignore") as well.
#ifndef BERTLAB_TASKS_UTF8_H_
#define BERTLAB_TASKS_UTF8_H_

#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"

namespace bertlab {

inline constexpr char32_t kReplacementCharacter = 0xFFFD;

// Decodes `bytes`; never fails (see the file comment). Every returned value is
// a Unicode scalar value (no surrogates, at most U+10FFFF).
std::u32string DecodeUtf8Lenient(absl::string_view bytes);

// Decodes the one sequence that starts at bytes[i] (i < bytes.size()) as
// DecodeUtf8Lenient does: sets `*value` to its code point, or to U+FFFD for
// an ill-formed sequence, and returns the number of bytes it takes (at least
// 1), so that a caller can decode as it goes without a decoded copy.
size_t DecodeUtf8At(absl::string_view bytes, size_t i, char32_t* value);

// Whether `bytes` is well-formed UTF-8.
bool IsValidUtf8(absl::string_view bytes);

// Appends the UTF-8 encoding of `codepoint`, which must be a Unicode scalar
// value (CHECKed).
void AppendUtf8(char32_t codepoint, std::string* out);

// Encodes a sequence of Unicode scalar values.
std::string EncodeUtf8(const std::u32string& codepoints);

}  // namespace bertlab

#endif  // BERTLAB_TASKS_UTF8_H_
