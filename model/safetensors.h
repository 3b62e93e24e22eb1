// Reader and writer for the safetensors checkpoint format
// (https://github.com/huggingface/safetensors, "Format" in its README):
//
//   bytes [0, 8)        N, the header length, a little-endian uint64
//   bytes [8, 8 + N)    the header: a UTF-8 JSON object, possibly padded at
//                       the end with spaces (0x20)
//   bytes [8 + N, end)  the byte buffer holding every tensor's data
//
// The header maps each tensor name to
//   {"dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end]}
// with offsets relative to the start of the byte buffer, end exclusive, and
// an optional "__metadata__" entry mapping strings to strings. Data is
// row-major and little-endian. As in the official implementation, the
// tensors must tile the byte buffer exactly: no overlaps, holes or trailing
// bytes. Unknown keys inside a tensor entry are ignored, as there.
//
// bertlab reads and writes the dtypes F32, F16, BF16, I32 and I64; other
// dtypes of the format (F64, U8, BOOL, ...) are reported as unsupported.
#ifndef BERTLAB_MODEL_SAFETENSORS_H_
#define BERTLAB_MODEL_SAFETENSORS_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace bertlab {

enum class DType { kF32, kF16, kBF16, kI32, kI64 };

// The format's spelling: "F32", "F16", "BF16", "I32", "I64".
absl::string_view DTypeName(DType dtype);
// Bytes per element.
int64_t DTypeSize(DType dtype);

// One tensor of a SafetensorsFile. `bytes` points into the file's storage and
// is valid while the SafetensorsFile (or whatever it was moved into) lives;
// it need not be aligned for the element type.
struct TensorInfo {
  DType dtype;
  std::vector<int64_t> shape;  // [] for a scalar
  int64_t num_elements;        // product of `shape` (1 for a scalar)
  int64_t data_begin;          // data_offsets, relative to the byte buffer
  int64_t data_end;
  absl::Span<const uint8_t> bytes;
};

// A parsed and fully validated safetensors file. Every error names the file
// (its path, or the display name given to FromBytes) and the problem.
class SafetensorsFile {
 public:
  // Memory-maps the file at `path` read-only for the object's lifetime.
  static absl::StatusOr<SafetensorsFile> Open(const std::string& path);
  // Parses a file held in memory; `display_name` stands for the path in
  // messages.
  static absl::StatusOr<SafetensorsFile> FromBytes(std::string bytes,
                                                   std::string display_name);

  SafetensorsFile(SafetensorsFile&& other) noexcept;
  SafetensorsFile& operator=(SafetensorsFile&& other) noexcept;
  ~SafetensorsFile();

  const std::string& display_name() const { return display_name_; }
  const std::map<std::string, std::string>& metadata() const {
    return metadata_;
  }
  // Sorted by name.
  std::vector<std::string> TensorNames() const;
  // nullptr if there is no tensor called `name`.
  const TensorInfo* Find(absl::string_view name) const;

  // The values of an F32, F16 or BF16 tensor, converted to float (exactly).
  absl::StatusOr<std::vector<float>> ReadFloat32(absl::string_view name) const;
  // The values of an I32 / I64 tensor; other dtypes are an error.
  absl::StatusOr<std::vector<int32_t>> ReadInt32(absl::string_view name) const;
  absl::StatusOr<std::vector<int64_t>> ReadInt64(absl::string_view name) const;

 private:
  class Storage;  // the mapped file or the in-memory bytes

  SafetensorsFile(std::unique_ptr<Storage> storage, std::string display_name);
  static absl::StatusOr<SafetensorsFile> Parse(std::unique_ptr<Storage> storage,
                                               std::string display_name);
  absl::Status ParseStorage();
  absl::StatusOr<const TensorInfo*> FindForRead(absl::string_view name,
                                                absl::string_view reader) const;
  absl::Status WrongDType(absl::string_view name, const TensorInfo& tensor,
                          absl::string_view reader,
                          absl::string_view wanted) const;

  std::unique_ptr<Storage> storage_;
  std::string display_name_;
  std::map<std::string, std::string> metadata_;
  std::map<std::string, TensorInfo, std::less<>> tensors_;
};

// The flat index of the first NaN or infinity of an F32, F16 or BF16 tensor
// (read from the raw bits, no conversion), or -1 when every element is
// finite or the tensor holds integers.
int64_t FirstNonFiniteElement(const TensorInfo& tensor);

// "<name>: element 7 (index [0, 7]) is nan" for a FirstNonFiniteElement.
std::string DescribeNonFiniteElement(absl::string_view name,
                                     const TensorInfo& tensor, int64_t element);

// Collects tensors and metadata, then writes a safetensors file. Tensors are
// laid out in sorted-name order and the header is padded with spaces so the
// byte buffer starts at a multiple of 8.
class SafetensorsWriter {
 public:
  // Sets (or replaces) a "__metadata__" entry.
  void SetMetadata(std::string key, std::string value);

  // Adds a tensor from raw little-endian bytes. Errors: a repeated name (or
  // "__metadata__"), a negative dimension, or bytes.size() differing from
  // product(shape) * DTypeSize(dtype).
  absl::Status Add(std::string name, DType dtype, std::vector<int64_t> shape,
                   absl::Span<const uint8_t> bytes);
  absl::Status AddFloat32(std::string name, std::vector<int64_t> shape,
                          absl::Span<const float> values);
  absl::Status AddInt32(std::string name, std::vector<int64_t> shape,
                        absl::Span<const int32_t> values);
  absl::Status AddInt64(std::string name, std::vector<int64_t> shape,
                        absl::Span<const int64_t> values);
  // Stores float values as BF16 / F16, rounding to nearest even.
  absl::Status AddFloat32AsBf16(std::string name, std::vector<int64_t> shape,
                                absl::Span<const float> values);
  absl::Status AddFloat32AsF16(std::string name, std::vector<int64_t> shape,
                               absl::Span<const float> values);

  // The whole file. Fails only if a name or metadata string is not UTF-8.
  absl::StatusOr<std::string> Serialize() const;
  // Serialize() written with WriteFileAtomically.
  absl::Status WriteFile(const std::string& path) const;

 private:
  struct Tensor {
    DType dtype;
    std::vector<int64_t> shape;
    std::string bytes;
  };

  std::map<std::string, std::string> metadata_;
  std::map<std::string, Tensor> tensors_;
};

}  // namespace bertlab

#endif  // BERTLAB_MODEL_SAFETENSORS_H_
