// Fuzz target: any bytes as a safetensors file for SafetensorsFile::FromBytes
// (model/safetensors.h), reading every tensor it accepts.
//
// Invariants, each a CHECK:
//   * An error names the file.
//   * An OK parse has tensors that tile the data buffer (the bytes after the
//     8-byte length and the header it gives) exactly, in offset order; each
//     tensor's bytes are the input's bytes at its data_offsets, as many as
//     product(shape) * the dtype's size; TensorNames is sorted and every name
//     is found.
//   * The reader of a tensor's dtype gives num_elements values (F32, I32 and
//     I64 the bytes as they are; F16 and BF16 widened exactly), and the
//     readers of other dtypes refuse it with a message naming the file.
//   * Tensors and metadata round-trip: what SafetensorsWriter writes of them
//     parses back to the same names, dtypes, shapes, bytes and metadata.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "common/check.h"
#include "common/half.h"
#include "model/safetensors.h"

namespace bertlab {
namespace {

constexpr char kName[] = "fuzz.safetensors";

void CheckRefusal(const absl::Status& status) {
  CHECK(!status.ok());
  CHECK(absl::StrContains(status.message(), kName))
      << "an error that does not name the file: " << status;
}

template <typename T>
std::vector<T> Elements(absl::Span<const uint8_t> bytes) {
  std::vector<T> values(bytes.size() / sizeof(T));
  if (!values.empty()) std::memcpy(values.data(), bytes.data(), bytes.size());
  return values;
}

// Reads `name` with every reader: only its dtype's succeed.
void CheckReaders(const SafetensorsFile& file, const std::string& name,
                  const TensorInfo& tensor) {
  const size_t count = static_cast<size_t>(tensor.num_elements);
  const absl::StatusOr<std::vector<float>> floats = file.ReadFloat32(name);
  const absl::StatusOr<std::vector<int32_t>> int32s = file.ReadInt32(name);
  const absl::StatusOr<std::vector<int64_t>> int64s = file.ReadInt64(name);
  switch (tensor.dtype) {
    case DType::kF32: {
      CHECK(floats.ok()) << floats.status();
      CHECK_EQ(floats->size(), count);
      CHECK(floats->empty() || std::memcmp(floats->data(), tensor.bytes.data(),
                                           tensor.bytes.size()) == 0);
      break;
    }
    case DType::kF16:
    case DType::kBF16: {
      CHECK(floats.ok()) << floats.status();
      CHECK_EQ(floats->size(), count);
      const std::vector<uint16_t> bits = Elements<uint16_t>(tensor.bytes);
      for (size_t i = 0; i < count; ++i) {
        const float expected = tensor.dtype == DType::kF16
                                   ? HalfToFloat(bits[i])
                                   : Bf16ToFloat(bits[i]);
        CHECK(std::memcmp(&expected, &(*floats)[i], sizeof(float)) == 0)
            << name << " element " << i;
      }
      break;
    }
    case DType::kI32:
      CHECK(int32s.ok()) << int32s.status();
      CHECK(*int32s == Elements<int32_t>(tensor.bytes));
      CHECK_EQ(int32s->size(), count);
      break;
    case DType::kI64:
      CHECK(int64s.ok()) << int64s.status();
      CHECK(*int64s == Elements<int64_t>(tensor.bytes));
      CHECK_EQ(int64s->size(), count);
      break;
  }
  const bool is_float = tensor.dtype == DType::kF32 ||
                        tensor.dtype == DType::kF16 ||
                        tensor.dtype == DType::kBF16;
  if (!is_float) CheckRefusal(floats.status());
  if (tensor.dtype != DType::kI32) CheckRefusal(int32s.status());
  if (tensor.dtype != DType::kI64) CheckRefusal(int64s.status());
}

void CheckFile(const SafetensorsFile& file, absl::string_view input) {
  CHECK_EQ(file.display_name(), kName);
  uint64_t header_length = 0;
  for (size_t i = 0; i < 8; ++i) {
    header_length |= static_cast<uint64_t>(static_cast<uint8_t>(input[i]))
                     << (8 * i);
  }
  CHECK_LE(header_length, input.size() - 8);
  const absl::string_view buffer = input.substr(8 + header_length);

  const std::vector<std::string> names = file.TensorNames();
  CHECK(std::is_sorted(names.begin(), names.end()));
  CHECK(std::adjacent_find(names.begin(), names.end()) == names.end());
  std::vector<std::pair<int64_t, int64_t>> extents;
  for (const std::string& name : names) {
    CHECK(name != "__metadata__");
    const TensorInfo* tensor = file.Find(name);
    CHECK(tensor != nullptr) << name;
    int64_t num_elements = 1;
    for (int64_t dimension : tensor->shape) {
      CHECK_GE(dimension, 0);
      num_elements *= dimension;
    }
    CHECK_EQ(tensor->num_elements, num_elements) << name;
    CHECK_LE(0, tensor->data_begin);
    CHECK_LE(tensor->data_begin, tensor->data_end);
    CHECK_LE(static_cast<uint64_t>(tensor->data_end), buffer.size());
    CHECK_EQ(tensor->bytes.size(),
             static_cast<size_t>(tensor->data_end - tensor->data_begin));
    CHECK_EQ(static_cast<int64_t>(tensor->bytes.size()),
             num_elements * DTypeSize(tensor->dtype))
        << name;
    CHECK(buffer.substr(tensor->data_begin, tensor->bytes.size()) ==
          absl::string_view(reinterpret_cast<const char*>(tensor->bytes.data()),
                            tensor->bytes.size()))
        << name << ": bytes not at its data_offsets";
    extents.emplace_back(tensor->data_begin, tensor->data_end);
    CheckReaders(file, name, *tensor);
  }
  std::sort(extents.begin(), extents.end());
  int64_t covered = 0;
  for (const auto& [begin, end] : extents) {
    CHECK_EQ(begin, covered) << "tensors do not tile the data buffer";
    covered = end;
  }
  CHECK_EQ(static_cast<uint64_t>(covered), buffer.size());
  CHECK(file.Find("__metadata__") == nullptr);
}

void CheckRoundTrip(const SafetensorsFile& file) {
  SafetensorsWriter writer;
  for (const auto& [key, value] : file.metadata()) {
    writer.SetMetadata(key, value);
  }
  for (const std::string& name : file.TensorNames()) {
    const TensorInfo& tensor = *file.Find(name);
    const absl::Status added =
        writer.Add(name, tensor.dtype, tensor.shape, tensor.bytes);
    CHECK(added.ok()) << added;
  }
  absl::StatusOr<std::string> written = writer.Serialize();
  CHECK(written.ok()) << written.status();
  const absl::StatusOr<SafetensorsFile> again =
      SafetensorsFile::FromBytes(*std::move(written), kName);
  CHECK(again.ok()) << "what SafetensorsWriter wrote does not parse: "
                    << again.status();
  CHECK(again->metadata() == file.metadata());
  CHECK(again->TensorNames() == file.TensorNames());
  for (const std::string& name : file.TensorNames()) {
    const TensorInfo& before = *file.Find(name);
    const TensorInfo& after = *again->Find(name);
    CHECK(after.dtype == before.dtype) << name;
    CHECK(after.shape == before.shape) << name;
    CHECK(after.bytes == before.bytes) << name;
  }
}

}  // namespace
}  // namespace bertlab

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<bertlab::SafetensorsFile> file =
      bertlab::SafetensorsFile::FromBytes(input, bertlab::kName);
  if (!file.ok()) {
    bertlab::CheckRefusal(file.status());
    return 0;
  }
  bertlab::CheckFile(*file, input);
  bertlab::CheckRoundTrip(*file);
  return 0;
}
