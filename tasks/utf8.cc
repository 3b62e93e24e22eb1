#include "tasks/utf8.h"

#include <cstddef>
#include <cstdint>

#include "common/check.h"

namespace bertlab {
namespace {

bool IsContinuation(uint8_t byte) { return (byte & 0xC0) == 0x80; }

// The multi-byte case of DecodeUtf8At: the length of the sequence at
// bytes[i], or of its maximal subpart when it is ill-formed.
size_t DecodeMultiByte(absl::string_view bytes, size_t i, char32_t* value) {
  const uint8_t lead = static_cast<uint8_t>(bytes[i]);
  // Table 3-7 of the Unicode standard: the length of the sequence and the
  // range allowed for its second byte, which excludes overlong forms,
  // surrogates and values above U+10FFFF.
  int length = 0;
  uint8_t second_min = 0x80;
  uint8_t second_max = 0xBF;
  char32_t decoded = 0;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
    decoded = lead & 0x1F;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    decoded = lead & 0x0F;
    if (lead == 0xE0) second_min = 0xA0;
    if (lead == 0xED) second_max = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    decoded = lead & 0x07;
    if (lead == 0xF0) second_min = 0x90;
    if (lead == 0xF4) second_max = 0x8F;
  } else {
    // C0, C1, F5..FF and stray continuation bytes never start a sequence.
    *value = kReplacementCharacter;
    return 1;
  }
  size_t consumed = 1;
  for (int k = 1; k < length; ++k) {
    if (i + consumed >= bytes.size()) {
      *value = kReplacementCharacter;
      return consumed;
    }
    const uint8_t byte = static_cast<uint8_t>(bytes[i + consumed]);
    const bool in_range = k == 1 ? (byte >= second_min && byte <= second_max)
                                 : IsContinuation(byte);
    if (!in_range) {
      *value = kReplacementCharacter;
      return consumed;
    }
    decoded = (decoded << 6) | (byte & 0x3F);
    ++consumed;
  }
  *value = decoded;
  return consumed;
}

}  // namespace

size_t DecodeUtf8At(absl::string_view bytes, size_t i, char32_t* value) {
  const uint8_t lead = static_cast<uint8_t>(bytes[i]);
  if (lead < 0x80) {
    *value = lead;
    return 1;
  }
  return DecodeMultiByte(bytes, i, value);
}

std::u32string DecodeUtf8Lenient(absl::string_view bytes) {
  std::u32string out;
  out.reserve(bytes.size());
  size_t i = 0;
  while (i < bytes.size()) {
    char32_t value;
    i += DecodeUtf8At(bytes, i, &value);
    out.push_back(value);
  }
  return out;
}

bool IsValidUtf8(absl::string_view bytes) {
  size_t i = 0;
  while (i < bytes.size()) {
    char32_t value;
    const size_t length = DecodeUtf8At(bytes, i, &value);
    // A literal U+FFFD (EF BF BD) is well-formed; any other U+FFFD stands
    // for ill-formed bytes.
    if (value == kReplacementCharacter &&
        bytes.substr(i, length) != "\xEF\xBF\xBD") {
      return false;
    }
    i += length;
  }
  return true;
}

void AppendUtf8(char32_t codepoint, std::string* out) {
  CHECK(codepoint <= 0x10FFFF && (codepoint < 0xD800 || codepoint > 0xDFFF))
      << "not a Unicode scalar value: " << static_cast<uint32_t>(codepoint);
  if (codepoint < 0x80) {
    out->push_back(static_cast<char>(codepoint));
  } else if (codepoint < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (codepoint >> 6)));
    out->push_back(static_cast<char>(0x80 | (codepoint & 0x3F)));
  } else if (codepoint < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (codepoint >> 12)));
    out->push_back(static_cast<char>(0x80 | ((codepoint >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (codepoint & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (codepoint >> 18)));
    out->push_back(static_cast<char>(0x80 | ((codepoint >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((codepoint >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (codepoint & 0x3F)));
  }
}

std::string EncodeUtf8(const std::u32string& codepoints) {
  std::string out;
  out.reserve(codepoints.size());
  for (char32_t codepoint : codepoints) AppendUtf8(codepoint, &out);
  return out;
}

}  // namespace bertlab
