// JSON as Python's json.dumps writes it, for files that must match the
// reference scripts byte for byte (SQuAD's predictions.json and
// null_odds.json, the official evaluation's output).
#ifndef BERTLAB_TASKS_PYTHON_JSON_H_
#define BERTLAB_TASKS_PYTHON_JSON_H_

#include <string>

#include "absl/strings/string_view.h"

namespace bertlab {

// Python's repr(float) (what json.dumps writes for a float): the shortest
// digits that round-trip, fixed notation for decimal exponents in [-4, 16),
// else "1e-05" / "1.5e+16"; always a "." or an exponent ("100.0").
// NaN / Infinity as json.dumps writes them.
std::string PythonFloatRepr(double value);

// json.dumps of a string with ensure_ascii (the default): quotes, \" \\ \n
// \r \t \b \f, other control characters and every non-ASCII character as
// lowercase \uXXXX (UTF-16 surrogate pairs above U+FFFF). `utf8` must be
// valid UTF-8.
std::string PythonJsonString(absl::string_view utf8);

}  // namespace bertlab

#endif  // BERTLAB_TASKS_PYTHON_JSON_H_
