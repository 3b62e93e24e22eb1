#include "model/safetensors.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/file.h"
#include "common/half.h"
#include "common/status_macros.h"
#include "nlohmann/json.hpp"

namespace bertlab {
namespace {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "safetensors data is little-endian; bertlab copies it as is");

using Json = nlohmann::json;

// The limit of the official implementation (MAX_HEADER_SIZE).
constexpr uint64_t kMaxHeaderLength = 100'000'000;
constexpr size_t kLengthFieldSize = 8;
constexpr char kMetadataKey[] = "__metadata__";

struct DTypeEntry {
  absl::string_view name;
  DType dtype;
  int64_t size;
};
constexpr DTypeEntry kDTypes[] = {
    {"F32", DType::kF32, 4}, {"F16", DType::kF16, 2}, {"BF16", DType::kBF16, 2},
    {"I32", DType::kI32, 4}, {"I64", DType::kI64, 8},
};
// The format's other dtypes, which bertlab does not read.
constexpr absl::string_view kUnsupportedDTypes[] = {
    "F64",     "I8",      "I16",     "U8",      "U16",     "U32", "U64", "BOOL",
    "F8_E4M3", "F8_E5M2", "F8_E8M0", "F6_E2M3", "F6_E3M2", "F4",  "C64",
};

const DTypeEntry& EntryFor(DType dtype) {
  for (const DTypeEntry& entry : kDTypes) {
    if (entry.dtype == dtype) return entry;
  }
  return kDTypes[0];  // unreachable: every DType is in kDTypes
}

absl::StatusOr<DType> ParseDType(absl::string_view name) {
  for (const DTypeEntry& entry : kDTypes) {
    if (entry.name == name) return entry.dtype;
  }
  const std::string supported = "bertlab reads F32, F16, BF16, I32 and I64";
  for (absl::string_view unsupported : kUnsupportedDTypes) {
    if (unsupported == name) {
      return absl::UnimplementedError(
          absl::StrCat("unsupported dtype ", name, " (", supported, ")"));
    }
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown dtype \"", name, "\" (", supported, ")"));
}

std::string FormatShape(absl::Span<const int64_t> shape) {
  return absl::StrCat("[", absl::StrJoin(shape, ", "), "]");
}

// product(shape) * element_size, or an error for a negative dimension or an
// overflow of int64.
absl::StatusOr<int64_t> ByteCount(absl::Span<const int64_t> shape,
                                  int64_t element_size, int64_t* num_elements) {
  int64_t product = 1;
  for (int64_t dimension : shape) {
    if (dimension < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "shape ", FormatShape(shape), " has a negative dimension"));
    }
    if (__builtin_mul_overflow(product, dimension, &product)) {
      return absl::InvalidArgumentError(
          absl::StrCat("shape ", FormatShape(shape), " has too many elements"));
    }
  }
  int64_t bytes;
  if (__builtin_mul_overflow(product, element_size, &bytes)) {
    return absl::InvalidArgumentError(
        absl::StrCat("shape ", FormatShape(shape), " has too many bytes"));
  }
  *num_elements = product;
  return bytes;
}

// ---- The JSON boundary: nlohmann::json reports errors by exceptions, which
// bertlab does not use elsewhere; these two functions turn them into Status.

// Parses `text`, also rejecting a key repeated within one object (nlohmann
// would silently keep the last one). Repeated top-level keys are duplicate
// tensor names.
absl::StatusOr<Json> ParseJson(absl::string_view text) {
  std::vector<std::set<std::string>> keys_of_open_objects;
  std::string duplicate_error;
  const Json::parser_callback_t callback =
      [&](int /*depth*/, Json::parse_event_t event, Json& parsed) {
        switch (event) {
          case Json::parse_event_t::object_start:
            keys_of_open_objects.emplace_back();
            break;
          case Json::parse_event_t::object_end:
            keys_of_open_objects.pop_back();
            break;
          case Json::parse_event_t::key: {
            const std::string& key = parsed.get_ref<const std::string&>();
            if (!keys_of_open_objects.back().insert(key).second &&
                duplicate_error.empty()) {
              duplicate_error =
                  keys_of_open_objects.size() == 1
                      ? absl::StrCat("duplicate tensor name \"", key, "\"")
                      : absl::StrCat("duplicate key \"", key,
                                     "\" inside a header entry");
            }
            break;
          }
          default:
            break;
        }
        return true;
      };
  Json json;
  try {
    json = Json::parse(text.begin(), text.end(), callback);
  } catch (const Json::parse_error& error) {
    return absl::InvalidArgumentError(absl::StrCat(
        "malformed JSON header at byte ", error.byte, ": ", error.what()));
  } catch (const Json::exception& error) {
    return absl::InvalidArgumentError(
        absl::StrCat("malformed JSON header: ", error.what()));
  }
  if (!duplicate_error.empty()) {
    return absl::InvalidArgumentError(duplicate_error);
  }
  return json;
}

absl::StatusOr<std::string> DumpJson(const nlohmann::ordered_json& json) {
  try {
    return json.dump();
  } catch (const nlohmann::ordered_json::exception& error) {
    // The only one dump() throws: a string that is not UTF-8.
    return absl::InvalidArgumentError(
        absl::StrCat("cannot write the JSON header: ", error.what()));
  }
}

// ---- Header validation.

// A short description of a JSON value for messages: scalars as written,
// containers by type.
std::string Describe(const Json& value) {
  if (value.is_structured()) return value.type_name();
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// `value` as a non-negative integer that fits in int64.
absl::StatusOr<int64_t> NonNegativeInteger(const Json& value,
                                           absl::string_view what) {
  if (value.is_number_unsigned()) {
    const uint64_t number = value.get<uint64_t>();
    if (number <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return static_cast<int64_t>(number);
    }
    return absl::InvalidArgumentError(
        absl::StrCat(what, " ", number, " is too large"));
  }
  if (value.is_number_integer()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " must not be negative, got ", Describe(value)));
  }
  return absl::InvalidArgumentError(absl::StrCat(
      what, " must be a non-negative integer, got ",
      value.is_number() ? "the non-integer " : "", Describe(value)));
}

// The member `key` of the tensor entry `entry`, which must exist and have
// the JSON type that `has_type` tests for.
absl::StatusOr<const Json*> Field(const Json& entry, const char* key,
                                  bool (Json::*has_type)() const noexcept,
                                  absl::string_view type_name) {
  const auto found = entry.find(key);
  if (found == entry.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat("missing \"", key, "\" (a tensor entry needs \"dtype\", ",
                     "\"shape\" and \"data_offsets\")"));
  }
  if (!((*found).*has_type)()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "\"", key, "\" must be ", type_name, ", got ", Describe(*found)));
  }
  return &*found;
}

// Parses one tensor entry of the header, checking it against the size of the
// byte buffer; `bytes` is left for the caller to fill in.
absl::StatusOr<TensorInfo> ParseTensorEntry(const Json& entry,
                                            uint64_t buffer_size) {
  if (!entry.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "entry must be a JSON object with \"dtype\", \"shape\" and "
        "\"data_offsets\", got ",
        Describe(entry)));
  }
  TensorInfo tensor;
  ASSIGN_OR_RETURN(const Json* dtype,
                   Field(entry, "dtype", &Json::is_string, "a string"));
  ASSIGN_OR_RETURN(tensor.dtype,
                   ParseDType(dtype->get_ref<const std::string&>()));

  ASSIGN_OR_RETURN(const Json* shape,
                   Field(entry, "shape", &Json::is_array, "an array"));
  for (size_t i = 0; i < shape->size(); ++i) {
    ASSIGN_OR_RETURN(
        int64_t dimension,
        NonNegativeInteger((*shape)[i], absl::StrCat("shape entry ", i)));
    tensor.shape.push_back(dimension);
  }

  ASSIGN_OR_RETURN(const Json* offsets,
                   Field(entry, "data_offsets", &Json::is_array, "an array"));
  if (offsets->size() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("\"data_offsets\" must be two integers [begin, end], got ",
                     offsets->size(), " entries"));
  }
  ASSIGN_OR_RETURN(tensor.data_begin,
                   NonNegativeInteger((*offsets)[0], "data_offsets begin"));
  ASSIGN_OR_RETURN(tensor.data_end,
                   NonNegativeInteger((*offsets)[1], "data_offsets end"));
  const std::string offsets_text = absl::StrCat(
      "data_offsets [", tensor.data_begin, ", ", tensor.data_end, ")");
  if (tensor.data_begin > tensor.data_end) {
    return absl::InvalidArgumentError(
        absl::StrCat(offsets_text, ": begin is after end"));
  }

  const absl::string_view dtype_name = EntryFor(tensor.dtype).name;
  ASSIGN_OR_RETURN(const int64_t expected_bytes,
                   ByteCount(tensor.shape, EntryFor(tensor.dtype).size,
                             &tensor.num_elements));
  const int64_t actual_bytes = tensor.data_end - tensor.data_begin;
  if (expected_bytes != actual_bytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "dtype/shape/byte-count mismatch: dtype ", dtype_name, " with shape ",
        FormatShape(tensor.shape), " needs ", expected_bytes, " bytes, but ",
        offsets_text, " span ", actual_bytes, " bytes"));
  }
  if (static_cast<uint64_t>(tensor.data_end) > buffer_size) {
    return absl::DataLossError(
        absl::StrCat(offsets_text, " out of range: the data buffer has only ",
                     buffer_size, " bytes (truncated file?)"));
  }
  return tensor;
}

absl::StatusOr<std::map<std::string, std::string>> ParseMetadata(
    const Json& metadata) {
  const std::string expected =
      absl::StrCat("\"", kMetadataKey, "\" must be a JSON object of strings");
  if (!metadata.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat(expected, ", got ", Describe(metadata)));
  }
  std::map<std::string, std::string> result;
  for (const auto& item : metadata.items()) {
    if (!item.value().is_string()) {
      return absl::InvalidArgumentError(absl::StrCat(
          expected, "; \"", item.key(), "\" is ", Describe(item.value())));
    }
    result[item.key()] = item.value().get<std::string>();
  }
  return result;
}

// Closes a file descriptor when it goes out of scope.
class FdCloser {
 public:
  explicit FdCloser(int fd) : fd_(fd) {}
  FdCloser(const FdCloser&) = delete;
  FdCloser& operator=(const FdCloser&) = delete;
  ~FdCloser() { ::close(fd_); }

 private:
  int fd_;
};

template <typename T>
absl::Span<const uint8_t> AsBytes(absl::Span<const T> values) {
  return absl::Span<const uint8_t>(
      reinterpret_cast<const uint8_t*>(values.data()),
      values.size() * sizeof(T));
}

// Copies the (possibly unaligned) little-endian elements of `bytes`.
template <typename T>
std::vector<T> CopyElements(absl::Span<const uint8_t> bytes) {
  std::vector<T> values(bytes.size() / sizeof(T));
  if (!values.empty()) std::memcpy(values.data(), bytes.data(), bytes.size());
  return values;
}

}  // namespace

absl::string_view DTypeName(DType dtype) { return EntryFor(dtype).name; }

int64_t DTypeSize(DType dtype) { return EntryFor(dtype).size; }

// ---- SafetensorsFile

// Owns the file's bytes at a fixed address, so TensorInfo::bytes stays valid
// when the SafetensorsFile moves.
class SafetensorsFile::Storage {
 public:
  explicit Storage(std::string bytes)
      : owned_(std::move(bytes)),
        data_(reinterpret_cast<const uint8_t*>(owned_.data())),
        size_(owned_.size()) {}
  Storage(void* mapping, size_t size)
      : mapping_(mapping),
        data_(static_cast<const uint8_t*>(mapping)),
        size_(size) {}
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;
  ~Storage() {
    if (mapping_ != nullptr) ::munmap(mapping_, size_);
  }

  absl::Span<const uint8_t> bytes() const { return {data_, size_}; }

 private:
  std::string owned_;
  void* mapping_ = nullptr;  // from mmap, or nullptr
  const uint8_t* data_;
  size_t size_;
};

SafetensorsFile::SafetensorsFile(std::unique_ptr<Storage> storage,
                                 std::string display_name)
    : storage_(std::move(storage)), display_name_(std::move(display_name)) {}
SafetensorsFile::SafetensorsFile(SafetensorsFile&& other) noexcept = default;
SafetensorsFile& SafetensorsFile::operator=(SafetensorsFile&& other) noexcept =
    default;
SafetensorsFile::~SafetensorsFile() = default;

absl::StatusOr<SafetensorsFile> SafetensorsFile::Open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return absl::ErrnoToStatus(
        errno, absl::StrCat("cannot open safetensors file ", path));
  }
  FdCloser closer(fd);
  struct stat info;
  if (::fstat(fd, &info) != 0) {
    return absl::ErrnoToStatus(errno, absl::StrCat("cannot stat ", path));
  }
  if (!S_ISREG(info.st_mode)) {
    return absl::FailedPreconditionError(
        absl::StrCat(path, ": not a regular file"));
  }
  const size_t size = static_cast<size_t>(info.st_size);
  std::unique_ptr<Storage> storage;
  if (size == 0) {  // mmap rejects an empty range; parsing reports truncation
    storage = std::make_unique<Storage>(std::string());
  } else {
    void* mapping = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (mapping == MAP_FAILED) {
      return absl::ErrnoToStatus(errno, absl::StrCat("cannot mmap ", path));
    }
    storage = std::make_unique<Storage>(mapping, size);
  }
  return Parse(std::move(storage), path);
}

absl::StatusOr<SafetensorsFile> SafetensorsFile::FromBytes(
    std::string bytes, std::string display_name) {
  return Parse(std::make_unique<Storage>(std::move(bytes)),
               std::move(display_name));
}

absl::StatusOr<SafetensorsFile> SafetensorsFile::Parse(
    std::unique_ptr<Storage> storage, std::string display_name) {
  SafetensorsFile file(std::move(storage), std::move(display_name));
  if (absl::Status status = file.ParseStorage(); !status.ok()) {
    return Annotate(status, absl::StrCat(file.display_name_, ": "));
  }
  return file;
}

absl::Status SafetensorsFile::ParseStorage() {
  const absl::Span<const uint8_t> file = storage_->bytes();
  if (file.size() < kLengthFieldSize) {
    return absl::DataLossError(absl::StrCat(
        "truncated: the file has ", file.size(),
        " bytes, fewer than the 8-byte header length that starts it"));
  }
  uint64_t header_length = 0;
  for (size_t i = 0; i < kLengthFieldSize; ++i) {
    header_length |= static_cast<uint64_t>(file[i]) << (8 * i);
  }
  if (header_length > kMaxHeaderLength) {
    return absl::InvalidArgumentError(absl::StrCat(
        "bad header length ", header_length, ": larger than the limit of ",
        kMaxHeaderLength, " bytes"));
  }
  const size_t after_length = file.size() - kLengthFieldSize;
  if (header_length > after_length) {
    return absl::DataLossError(absl::StrCat(
        "bad header length ", header_length, ": only ", after_length,
        " bytes follow the length field (truncated file?)"));
  }
  const absl::string_view header(
      reinterpret_cast<const char*>(file.data() + kLengthFieldSize),
      header_length);
  if (header.empty() || header.front() != '{') {
    return absl::InvalidArgumentError(
        "the header is not a JSON object: it must start with '{'");
  }
  ASSIGN_OR_RETURN(const Json json, ParseJson(header));
  // A document that starts with '{' and parses is an object.

  const absl::Span<const uint8_t> buffer =
      file.subspan(kLengthFieldSize + header_length);
  for (const auto& item : json.items()) {
    const std::string& name = item.key();
    if (name == kMetadataKey) {
      ASSIGN_OR_RETURN(metadata_, ParseMetadata(item.value()));
      continue;
    }
    ASSIGN_OR_RETURN(TensorInfo tensor,
                     ParseTensorEntry(item.value(), buffer.size()),
                     _.Prepend("tensor \"", name, "\": "));
    tensor.bytes = buffer.subspan(
        static_cast<size_t>(tensor.data_begin),
        static_cast<size_t>(tensor.data_end - tensor.data_begin));
    tensors_.emplace(name, std::move(tensor));
  }

  // The tensors must tile the buffer: sorted by offsets, each begins where
  // the previous one ended, and the last ends at the end of the buffer.
  std::vector<std::tuple<int64_t, int64_t, const std::string*>> extents;
  for (const auto& [name, tensor] : tensors_) {
    extents.emplace_back(tensor.data_begin, tensor.data_end, &name);
  }
  std::sort(extents.begin(), extents.end());
  const char* const kTilingRule =
      "safetensors requires the tensors to tile the data buffer exactly, "
      "with no holes or trailing bytes";
  int64_t covered = 0;
  const std::string* previous = nullptr;
  for (const auto& [begin, end, name] : extents) {
    if (begin < covered) {
      return absl::InvalidArgumentError(
          absl::StrCat("overlapping tensors: \"", *name, "\" begins at byte ",
                       begin, " of the data buffer, inside \"", *previous,
                       "\", which ends at byte ", covered));
    }
    if (begin > covered) {
      return absl::InvalidArgumentError(absl::StrCat(
          "bytes [", covered, ", ", begin,
          ") of the data buffer are not covered by any tensor; ", kTilingRule));
    }
    covered = end;
    previous = name;
  }
  if (static_cast<size_t>(covered) != buffer.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "trailing bytes [", covered, ", ", buffer.size(),
        ") of the data buffer are not covered by any tensor; ", kTilingRule));
  }
  return absl::OkStatus();
}

std::vector<std::string> SafetensorsFile::TensorNames() const {
  std::vector<std::string> names;
  names.reserve(tensors_.size());
  for (const auto& [name, tensor] : tensors_) names.push_back(name);
  return names;
}

const TensorInfo* SafetensorsFile::Find(absl::string_view name) const {
  const auto found = tensors_.find(name);
  return found == tensors_.end() ? nullptr : &found->second;
}

absl::StatusOr<const TensorInfo*> SafetensorsFile::FindForRead(
    absl::string_view name, absl::string_view reader) const {
  const TensorInfo* tensor = Find(name);
  if (tensor == nullptr) {
    return absl::NotFoundError(absl::StrCat(
        display_name_, ": ", reader, ": no tensor named \"", name, "\""));
  }
  return tensor;
}

absl::Status SafetensorsFile::WrongDType(absl::string_view name,
                                         const TensorInfo& tensor,
                                         absl::string_view reader,
                                         absl::string_view wanted) const {
  return absl::InvalidArgumentError(absl::StrCat(
      display_name_, ": tensor \"", name, "\" has dtype ",
      DTypeName(tensor.dtype), ", but ", reader, " reads ", wanted));
}

absl::StatusOr<std::vector<float>> SafetensorsFile::ReadFloat32(
    absl::string_view name) const {
  ASSIGN_OR_RETURN(const TensorInfo* tensor, FindForRead(name, "ReadFloat32"));
  switch (tensor->dtype) {
    case DType::kF32:
      return CopyElements<float>(tensor->bytes);
    case DType::kF16:
    case DType::kBF16: {
      const std::vector<uint16_t> bits = CopyElements<uint16_t>(tensor->bytes);
      std::vector<float> values(bits.size());
      for (size_t i = 0; i < bits.size(); ++i) {
        values[i] = tensor->dtype == DType::kF16 ? HalfToFloat(bits[i])
                                                 : Bf16ToFloat(bits[i]);
      }
      return values;
    }
    case DType::kI32:
    case DType::kI64:
      break;
  }
  return WrongDType(name, *tensor, "ReadFloat32", "F32, F16 or BF16");
}

absl::StatusOr<std::vector<int32_t>> SafetensorsFile::ReadInt32(
    absl::string_view name) const {
  ASSIGN_OR_RETURN(const TensorInfo* tensor, FindForRead(name, "ReadInt32"));
  if (tensor->dtype != DType::kI32) {
    return WrongDType(name, *tensor, "ReadInt32", "I32");
  }
  return CopyElements<int32_t>(tensor->bytes);
}

absl::StatusOr<std::vector<int64_t>> SafetensorsFile::ReadInt64(
    absl::string_view name) const {
  ASSIGN_OR_RETURN(const TensorInfo* tensor, FindForRead(name, "ReadInt64"));
  if (tensor->dtype != DType::kI64) {
    return WrongDType(name, *tensor, "ReadInt64", "I64");
  }
  return CopyElements<int64_t>(tensor->bytes);
}

namespace {

// Whether any element of `bytes` (little-endian, `Bits` wide) has all of
// `exponent`'s bits set (an infinity or a NaN), and the first such index.
template <typename Bits>
int64_t FirstAllOnesExponent(absl::Span<const uint8_t> bytes, Bits exponent) {
  const int64_t count = static_cast<int64_t>(bytes.size() / sizeof(Bits));
  constexpr int64_t kChunk = 4096;
  for (int64_t begin = 0; begin < count; begin += kChunk) {
    const int64_t end = std::min(count, begin + kChunk);
    // Branch-free over the chunk (vectorisable), then find the element.
    bool any = false;
    for (int64_t i = begin; i < end; ++i) {
      Bits bits;
      std::memcpy(&bits, bytes.data() + i * sizeof(Bits), sizeof(Bits));
      any |= (bits & exponent) == exponent;
    }
    if (!any) continue;
    for (int64_t i = begin; i < end; ++i) {
      Bits bits;
      std::memcpy(&bits, bytes.data() + i * sizeof(Bits), sizeof(Bits));
      if ((bits & exponent) == exponent) return i;
    }
  }
  return -1;
}

}  // namespace

int64_t FirstNonFiniteElement(const TensorInfo& tensor) {
  switch (tensor.dtype) {
    case DType::kF32:
      return FirstAllOnesExponent<uint32_t>(tensor.bytes, 0x7F800000u);
    case DType::kF16:
      return FirstAllOnesExponent<uint16_t>(tensor.bytes, 0x7C00u);
    case DType::kBF16:
      return FirstAllOnesExponent<uint16_t>(tensor.bytes, 0x7F80u);
    case DType::kI32:
    case DType::kI64:
      break;
  }
  return -1;
}

std::string DescribeNonFiniteElement(absl::string_view name,
                                     const TensorInfo& tensor,
                                     int64_t element) {
  std::vector<int64_t> index(tensor.shape.size());
  int64_t rest = element;
  for (size_t d = tensor.shape.size(); d-- > 0;) {
    const int64_t extent = std::max<int64_t>(tensor.shape[d], 1);
    index[d] = rest % extent;
    rest /= extent;
  }
  float value = 0;
  switch (tensor.dtype) {
    case DType::kF32:
      std::memcpy(&value, tensor.bytes.data() + element * 4, 4);
      break;
    case DType::kF16:
    case DType::kBF16: {
      uint16_t bits;
      std::memcpy(&bits, tensor.bytes.data() + element * 2, 2);
      value =
          tensor.dtype == DType::kF16 ? HalfToFloat(bits) : Bf16ToFloat(bits);
      break;
    }
    case DType::kI32:
    case DType::kI64:
      break;
  }
  return absl::StrCat(
      name, ": element ", element, " (index [", absl::StrJoin(index, ", "),
      "]) is ", std::isnan(value) ? "nan" : (value > 0 ? "+inf" : "-inf"));
}

// ---- SafetensorsWriter

void SafetensorsWriter::SetMetadata(std::string key, std::string value) {
  metadata_[std::move(key)] = std::move(value);
}

absl::Status SafetensorsWriter::Add(std::string name, DType dtype,
                                    std::vector<int64_t> shape,
                                    absl::Span<const uint8_t> bytes) {
  if (name == kMetadataKey) {
    return absl::InvalidArgumentError(
        absl::StrCat("\"", kMetadataKey, "\" cannot be a tensor name"));
  }
  if (tensors_.count(name) != 0) {
    return absl::AlreadyExistsError(
        absl::StrCat("tensor \"", name, "\" was already added"));
  }
  int64_t num_elements = 0;
  ASSIGN_OR_RETURN(const int64_t expected_bytes,
                   ByteCount(shape, DTypeSize(dtype), &num_elements),
                   _.Prepend("tensor \"", name, "\": "));
  if (static_cast<uint64_t>(expected_bytes) != bytes.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("tensor \"", name, "\": dtype ", DTypeName(dtype),
                     " with shape ", FormatShape(shape), " needs ",
                     expected_bytes, " bytes, got ", bytes.size()));
  }
  Tensor& tensor = tensors_[std::move(name)];
  tensor.dtype = dtype;
  tensor.shape = std::move(shape);
  tensor.bytes.assign(reinterpret_cast<const char*>(bytes.data()),
                      bytes.size());
  return absl::OkStatus();
}

absl::Status SafetensorsWriter::AddFloat32(std::string name,
                                           std::vector<int64_t> shape,
                                           absl::Span<const float> values) {
  return Add(std::move(name), DType::kF32, std::move(shape), AsBytes(values));
}

absl::Status SafetensorsWriter::AddInt32(std::string name,
                                         std::vector<int64_t> shape,
                                         absl::Span<const int32_t> values) {
  return Add(std::move(name), DType::kI32, std::move(shape), AsBytes(values));
}

absl::Status SafetensorsWriter::AddInt64(std::string name,
                                         std::vector<int64_t> shape,
                                         absl::Span<const int64_t> values) {
  return Add(std::move(name), DType::kI64, std::move(shape), AsBytes(values));
}

absl::Status SafetensorsWriter::AddFloat32AsBf16(
    std::string name, std::vector<int64_t> shape,
    absl::Span<const float> values) {
  std::vector<uint16_t> bits(values.size());
  for (size_t i = 0; i < values.size(); ++i) bits[i] = FloatToBf16(values[i]);
  return Add(std::move(name), DType::kBF16, std::move(shape),
             AsBytes(absl::MakeConstSpan(bits)));
}

absl::Status SafetensorsWriter::AddFloat32AsF16(
    std::string name, std::vector<int64_t> shape,
    absl::Span<const float> values) {
  std::vector<uint16_t> bits(values.size());
  for (size_t i = 0; i < values.size(); ++i) bits[i] = FloatToHalf(values[i]);
  return Add(std::move(name), DType::kF16, std::move(shape),
             AsBytes(absl::MakeConstSpan(bits)));
}

absl::StatusOr<std::string> SafetensorsWriter::Serialize() const {
  // Keys in the order the official writer uses within an entry.
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!metadata_.empty()) {
    nlohmann::ordered_json& metadata = header[kMetadataKey];
    metadata = nlohmann::ordered_json::object();
    for (const auto& [key, value] : metadata_) metadata[key] = value;
  }
  uint64_t offset = 0;
  for (const auto& [name, tensor] : tensors_) {
    nlohmann::ordered_json entry = nlohmann::ordered_json::object();
    entry["dtype"] = std::string(DTypeName(tensor.dtype));
    entry["shape"] = tensor.shape;
    entry["data_offsets"] =
        nlohmann::ordered_json::array({offset, offset + tensor.bytes.size()});
    header[name] = std::move(entry);
    offset += tensor.bytes.size();
  }
  ASSIGN_OR_RETURN(std::string header_text, DumpJson(header));
  // Pad so that the buffer starts at 8 + N, a multiple of 8.
  header_text.append((8 - header_text.size() % 8) % 8, ' ');

  std::string file;
  file.reserve(kLengthFieldSize + header_text.size() + offset);
  const uint64_t header_length = header_text.size();
  for (size_t i = 0; i < kLengthFieldSize; ++i) {
    file.push_back(static_cast<char>((header_length >> (8 * i)) & 0xFF));
  }
  file += header_text;
  for (const auto& [name, tensor] : tensors_) file += tensor.bytes;
  return file;
}

absl::Status SafetensorsWriter::WriteFile(const std::string& path) const {
  ASSIGN_OR_RETURN(const std::string contents, Serialize(),
                   _.Prepend(path, ": "));
  return WriteFileAtomically(path, contents);
}

}  // namespace bertlab
