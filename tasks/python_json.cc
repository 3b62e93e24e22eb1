#include "tasks/python_json.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "tasks/utf8.h"

namespace bertlab {

std::string PythonFloatRepr(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  char buffer[64];
  const std::to_chars_result result = std::to_chars(
      buffer, buffer + sizeof(buffer), value, std::chars_format::scientific);
  const std::string scientific(buffer, result.ptr);
  // "-d.ddde+XX": sign, digits, exponent.
  size_t pos = 0;
  std::string sign;
  if (scientific[0] == '-') {
    sign = "-";
    pos = 1;
  }
  const size_t e = scientific.find('e');
  std::string digits;
  for (size_t i = pos; i < e; ++i) {
    if (scientific[i] != '.') digits.push_back(scientific[i]);
  }
  const int exponent = std::atoi(scientific.c_str() + e + 1);
  const int decpt = exponent + 1;
  const int ndigits = static_cast<int>(digits.size());
  std::string out = sign;
  if (decpt <= -4 || decpt > 16) {
    out += digits.substr(0, 1);
    if (ndigits > 1) absl::StrAppend(&out, ".", digits.substr(1));
    const int abs_exponent = exponent < 0 ? -exponent : exponent;
    absl::StrAppend(&out, exponent < 0 ? "e-" : "e+",
                    abs_exponent < 10 ? "0" : "", abs_exponent);
  } else if (decpt <= 0) {
    absl::StrAppend(&out, "0.", std::string(-decpt, '0'), digits);
  } else if (decpt >= ndigits) {
    absl::StrAppend(&out, digits, std::string(decpt - ndigits, '0'), ".0");
  } else {
    absl::StrAppend(&out, digits.substr(0, decpt), ".", digits.substr(decpt));
  }
  return out;
}

std::string PythonJsonString(absl::string_view utf8) {
  std::string out = "\"";
  char escape[16];
  auto append_u = [&](uint32_t unit) {
    std::snprintf(escape, sizeof(escape), "\\u%04x", unit);
    out += escape;
  };
  for (char32_t c : DecodeUtf8Lenient(utf8)) {
    switch (c) {
      case U'"':
        out += "\\\"";
        break;
      case U'\\':
        out += "\\\\";
        break;
      case U'\n':
        out += "\\n";
        break;
      case U'\r':
        out += "\\r";
        break;
      case U'\t':
        out += "\\t";
        break;
      case U'\b':
        out += "\\b";
        break;
      case U'\f':
        out += "\\f";
        break;
      default:
        // ensure_ascii keeps only " " .. "~" as they are.
        if (c < 0x20 || (c >= 0x7F && c <= 0xFFFF)) {
          append_u(static_cast<uint32_t>(c));
        } else if (c > 0xFFFF) {
          const uint32_t v = static_cast<uint32_t>(c) - 0x10000;
          append_u(0xD800 | (v >> 10));
          append_u(0xDC00 | (v & 0x3FF));
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
  }
  out += "\"";
  return out;
}

}  // namespace bertlab
