#include "model/safetensors.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bertlab {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Pair;
using namespace std::string_literals;  // "..."s keeps embedded NUL bytes

constexpr char kName[] = "bad.safetensors";

std::string TempPath(const std::string& name) {
  const char* root = std::getenv("TEST_TMPDIR");
  return absl::StrCat(root != nullptr ? root : "/tmp", "/", name);
}

std::string LittleEndian64(uint64_t value) {
  std::string bytes;
  for (int i = 0; i < 8; ++i)
    bytes.push_back(static_cast<char>(value >> (8 * i)));
  return bytes;
}

// A file with the given header (unpadded) and byte buffer.
std::string MakeFile(const std::string& header, const std::string& buffer) {
  return LittleEndian64(header.size()) + header + buffer;
}

// A header with one entry "t" and a buffer of `buffer_size` zero bytes.
std::string OneTensorFile(const std::string& entry, size_t buffer_size) {
  return MakeFile(absl::StrCat(R"({"t":)", entry, "}"),
                  std::string(buffer_size, '\0'));
}

template <typename T>
std::string Bytes(std::vector<T> values) {
  std::string bytes(values.size() * sizeof(T), '\0');
  if (!values.empty()) std::memcpy(&bytes[0], values.data(), bytes.size());
  return bytes;
}

// Parses `bytes` as kName, which must fail with `code` and a message that
// names the file and contains every one of `parts`.
void ExpectRejected(const std::string& bytes, absl::StatusCode code,
                    std::vector<std::string> parts) {
  absl::StatusOr<SafetensorsFile> file =
      SafetensorsFile::FromBytes(bytes, kName);
  ASSERT_FALSE(file.ok()) << "accepted a bad file";
  EXPECT_EQ(file.status().code(), code) << file.status();
  EXPECT_THAT(file.status().message(), HasSubstr(absl::StrCat(kName, ": ")));
  for (const std::string& part : parts) {
    EXPECT_THAT(file.status().message(), HasSubstr(part));
  }
}

// ---- The format, pinned by bytes written out by hand.

// bias: F32 [2] = {1, -2}; token_ids: I64 [1] = {7}; metadata format=pt.
// The header is 150 bytes of JSON plus 2 spaces of padding = 152 = 0x98, so
// the byte buffer starts at 8 + 152 = 160, a multiple of 8.
const std::string kHandBuiltHeader =
    R"({"__metadata__":{"format":"pt"},)"
    R"("bias":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
    R"("token_ids":{"dtype":"I64","shape":[1],"data_offsets":[8,16]}})"
    "  ";
const std::string kHandBuiltFile =
    "\x98\x00\x00\x00\x00\x00\x00\x00"s + kHandBuiltHeader +
    "\x00\x00\x80\x3f"                    // 1.0f
    "\x00\x00\x00\xc0"                    // -2.0f
    "\x07\x00\x00\x00\x00\x00\x00\x00"s;  // int64 7

TEST(SafetensorsFormatTest, HandBuiltFileIsConsistent) {
  ASSERT_EQ(kHandBuiltHeader.size(), 0x98u);
  ASSERT_EQ(kHandBuiltFile.size(), 8u + 0x98u + 16u);
}

TEST(SafetensorsFormatTest, ReadsHandBuiltFile) {
  absl::StatusOr<SafetensorsFile> file =
      SafetensorsFile::FromBytes(kHandBuiltFile, "hand.safetensors");
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_THAT(file->metadata(), ElementsAre(Pair("format", "pt")));
  EXPECT_THAT(file->TensorNames(), ElementsAre("bias", "token_ids"));

  const TensorInfo* bias = file->Find("bias");
  ASSERT_NE(bias, nullptr);
  EXPECT_EQ(bias->dtype, DType::kF32);
  EXPECT_THAT(bias->shape, ElementsAre(2));
  EXPECT_EQ(bias->num_elements, 2);
  EXPECT_EQ(bias->data_begin, 0);
  EXPECT_EQ(bias->data_end, 8);
  EXPECT_EQ(bias->bytes.size(), 8u);
  absl::StatusOr<std::vector<float>> bias_values = file->ReadFloat32("bias");
  ASSERT_TRUE(bias_values.ok()) << bias_values.status();
  EXPECT_THAT(*bias_values, ElementsAre(1.0f, -2.0f));

  absl::StatusOr<std::vector<int64_t>> ids = file->ReadInt64("token_ids");
  ASSERT_TRUE(ids.ok()) << ids.status();
  EXPECT_THAT(*ids, ElementsAre(7));
  EXPECT_EQ(file->Find("missing"), nullptr);
}

TEST(SafetensorsFormatTest, WriterProducesHandBuiltBytesExactly) {
  SafetensorsWriter writer;
  writer.SetMetadata("format", "pt");
  ASSERT_TRUE(writer.AddInt64("token_ids", {1}, std::vector<int64_t>{7}).ok());
  ASSERT_TRUE(writer.AddFloat32("bias", {2}, std::vector<float>{1, -2}).ok());
  absl::StatusOr<std::string> bytes = writer.Serialize();
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_EQ(*bytes, kHandBuiltFile);
}

TEST(SafetensorsFormatTest, EmptyWriterWritesPaddedEmptyObject) {
  absl::StatusOr<std::string> bytes = SafetensorsWriter().Serialize();
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_EQ(*bytes, "\x08\x00\x00\x00\x00\x00\x00\x00{}      "s);
  absl::StatusOr<SafetensorsFile> file =
      SafetensorsFile::FromBytes(*bytes, "empty");
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_THAT(file->TensorNames(), IsEmpty());
  EXPECT_THAT(file->metadata(), IsEmpty());
}

TEST(SafetensorsFormatTest, ReadsHalfAndBfloat16AsFloats) {
  const std::string file_bytes =
      MakeFile(R"({"h":{"dtype":"F16","shape":[2,2],"data_offsets":[0,8]},)"
               R"("b":{"dtype":"BF16","shape":[3],"data_offsets":[8,14]}})",
               "\x00\x3c"   // 1.0
               "\x00\xc0"   // -2.0
               "\xff\x7b"   // 65504, the largest half
               "\x01\x00"   // 2^-24, the smallest subnormal half
               "\x80\x3f"   // 1.0
               "\x49\x40"   // 3.140625
               "\x80\xff"s  // -infinity
      );
  absl::StatusOr<SafetensorsFile> file =
      SafetensorsFile::FromBytes(file_bytes, "mixed");
  ASSERT_TRUE(file.ok()) << file.status();
  absl::StatusOr<std::vector<float>> half = file->ReadFloat32("h");
  ASSERT_TRUE(half.ok()) << half.status();
  EXPECT_THAT(*half, ElementsAre(1.0f, -2.0f, 65504.0f, std::ldexp(1.0f, -24)));
  absl::StatusOr<std::vector<float>> bf16 = file->ReadFloat32("b");
  ASSERT_TRUE(bf16.ok()) << bf16.status();
  EXPECT_THAT(*bf16, ElementsAre(1.0f, 3.140625f, -INFINITY));
}

TEST(SafetensorsFormatTest, FindsTheFirstNonFiniteElementOfEachFloatDType) {
  const std::string file_bytes = MakeFile(
      R"({"h":{"dtype":"F16","shape":[2,2],"data_offsets":[0,8]},)"
      R"("b":{"dtype":"BF16","shape":[3],"data_offsets":[8,14]},)"
      R"("f":{"dtype":"F32","shape":[2,3],"data_offsets":[14,38]},)"
      R"("i":{"dtype":"I32","shape":[1],"data_offsets":[38,42]},)"
      R"("ok":{"dtype":"F32","shape":[2],"data_offsets":[42,50]}})",
      "\x00\x3c"   // 1.0
      "\xff\x7b"   // 65504: large, finite
      "\x00\x7e"   // NaN
      "\x00\x7c"   // +inf
      "\x80\x3f"   // 1.0
      "\x80\xff"   // -inf
      "\xc1\x7f"s  // NaN
          + Bytes<float>({1.0f, 3.4e38f, -0.0f, 1e-45f, -INFINITY, NAN}) +
          Bytes<int32_t>({-1}) + Bytes<float>({0.0f, -3.4e38f}));
  absl::StatusOr<SafetensorsFile> file =
      SafetensorsFile::FromBytes(file_bytes, "mixed");
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_EQ(FirstNonFiniteElement(*file->Find("h")), 2);
  EXPECT_EQ(FirstNonFiniteElement(*file->Find("b")), 1);
  EXPECT_EQ(FirstNonFiniteElement(*file->Find("f")), 4);
  EXPECT_EQ(FirstNonFiniteElement(*file->Find("i")), -1);  // -1 is all ones
  EXPECT_EQ(FirstNonFiniteElement(*file->Find("ok")), -1);
  EXPECT_EQ(DescribeNonFiniteElement("h", *file->Find("h"), 2),
            "h: element 2 (index [1, 0]) is nan");
  EXPECT_EQ(DescribeNonFiniteElement("b", *file->Find("b"), 1),
            "b: element 1 (index [1]) is -inf");
  EXPECT_EQ(DescribeNonFiniteElement("f", *file->Find("f"), 4),
            "f: element 4 (index [1, 1]) is -inf");
}

TEST(SafetensorsFormatTest, ReadsUnalignedData) {
  // A 71-byte header puts the buffer at offset 79, and the I32 tensor at an
  // odd offset after the 1-element F16 one.
  const std::string header =
      R"({"a":{"dtype":"F16","shape":[1],"data_offsets":[0,2]},)"
      R"("b":{"dtype":"I32","shape":[2],"data_offsets":[2,10]}})";
  const std::string file_bytes =
      MakeFile(header, "\x00\x3c"s + Bytes<int32_t>({-5, 123456789}));
  absl::StatusOr<SafetensorsFile> file =
      SafetensorsFile::FromBytes(file_bytes, "unaligned");
  ASSERT_TRUE(file.ok()) << file.status();
  absl::StatusOr<std::vector<int32_t>> values = file->ReadInt32("b");
  ASSERT_TRUE(values.ok()) << values.status();
  EXPECT_THAT(*values, ElementsAre(-5, 123456789));
}

TEST(SafetensorsFormatTest, IgnoresUnknownKeysInTensorEntries) {
  const std::string file_bytes = OneTensorFile(
      R"({"shape":[],"data_offsets":[0,4],"dtype":"I32","extra":[1]})", 4);
  absl::StatusOr<SafetensorsFile> file =
      SafetensorsFile::FromBytes(file_bytes, "extra");
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_THAT(file->Find("t")->shape, IsEmpty());
}

// ---- Round trips through the writer and the memory-mapped reader.

TEST(SafetensorsRoundTripTest, EveryDTypeScalarEmptyAndMetadata) {
  SafetensorsWriter writer;
  writer.SetMetadata("format", "pt");
  writer.SetMetadata("step", "100");
  writer.SetMetadata("step", "200");  // replaces
  const std::vector<float> floats = {0.5f, -1.25f, 3.0f, 1024.0f, -0.0f, 7.0f};
  ASSERT_TRUE(writer.AddFloat32("f32", {2, 3}, floats).ok());
  ASSERT_TRUE(writer.AddFloat32AsF16("f16", {3, 2}, floats).ok());
  ASSERT_TRUE(writer.AddFloat32AsBf16("bf16", {6}, floats).ok());
  ASSERT_TRUE(
      writer.AddInt32("i32", {3}, std::vector<int32_t>{-1, 0, 2147483647})
          .ok());
  ASSERT_TRUE(writer
                  .AddInt64("i64", {2, 1},
                            std::vector<int64_t>{-9000000000000000000, 42})
                  .ok());
  ASSERT_TRUE(writer.AddFloat32("scalar", {}, std::vector<float>{2.5f}).ok());
  ASSERT_TRUE(writer.AddFloat32("empty", {0, 4}, std::vector<float>{}).ok());
  const std::string raw = Bytes<float>({9.0f});
  ASSERT_TRUE(
      writer
          .Add("raw", DType::kF32, {1},
               absl::Span<const uint8_t>(
                   reinterpret_cast<const uint8_t*>(raw.data()), raw.size()))
          .ok());

  const std::string path = TempPath("round_trip.safetensors");
  ASSERT_TRUE(writer.WriteFile(path).ok());
  absl::StatusOr<SafetensorsFile> opened = SafetensorsFile::Open(path);
  ASSERT_TRUE(opened.ok()) << opened.status();
  // Moving keeps the tensors' bytes valid: they live in the mapping.
  SafetensorsFile file = std::move(opened).value();

  EXPECT_EQ(file.display_name(), path);
  EXPECT_THAT(file.metadata(),
              ElementsAre(Pair("format", "pt"), Pair("step", "200")));
  EXPECT_THAT(file.TensorNames(), ElementsAre("bf16", "empty", "f16", "f32",
                                              "i32", "i64", "raw", "scalar"));

  for (const char* name : {"f32", "f16", "bf16"}) {
    absl::StatusOr<std::vector<float>> values = file.ReadFloat32(name);
    ASSERT_TRUE(values.ok()) << values.status();
    EXPECT_EQ(*values, floats) << name;
  }
  EXPECT_EQ(file.Find("f32")->dtype, DType::kF32);
  EXPECT_EQ(file.Find("f16")->dtype, DType::kF16);
  EXPECT_EQ(file.Find("bf16")->dtype, DType::kBF16);
  EXPECT_THAT(file.Find("f16")->shape, ElementsAre(3, 2));
  EXPECT_TRUE(std::signbit((*file.ReadFloat32("f16"))[4]));

  absl::StatusOr<std::vector<int32_t>> i32 = file.ReadInt32("i32");
  ASSERT_TRUE(i32.ok()) << i32.status();
  EXPECT_THAT(*i32, ElementsAre(-1, 0, 2147483647));
  absl::StatusOr<std::vector<int64_t>> i64 = file.ReadInt64("i64");
  ASSERT_TRUE(i64.ok()) << i64.status();
  EXPECT_THAT(*i64, ElementsAre(-9000000000000000000, 42));
  EXPECT_THAT(file.Find("i64")->shape, ElementsAre(2, 1));

  const TensorInfo* scalar = file.Find("scalar");
  ASSERT_NE(scalar, nullptr);
  EXPECT_THAT(scalar->shape, IsEmpty());
  EXPECT_EQ(scalar->num_elements, 1);
  EXPECT_THAT(*file.ReadFloat32("scalar"), ElementsAre(2.5f));

  const TensorInfo* empty = file.Find("empty");
  ASSERT_NE(empty, nullptr);
  EXPECT_THAT(empty->shape, ElementsAre(0, 4));
  EXPECT_EQ(empty->num_elements, 0);
  EXPECT_TRUE(empty->bytes.empty());
  EXPECT_THAT(*file.ReadFloat32("empty"), IsEmpty());

  EXPECT_THAT(*file.ReadFloat32("raw"), ElementsAre(9.0f));

  // The buffer starts at a multiple of 8.
  absl::StatusOr<std::string> contents = ReadFileToString(path);
  ASSERT_TRUE(contents.ok()) << contents.status();
  uint64_t header_length = 0;
  std::memcpy(&header_length, contents->data(), 8);
  EXPECT_EQ((8 + header_length) % 8, 0u);
}

TEST(SafetensorsRoundTripTest, RoundsToNearestEvenWhenNarrowing) {
  SafetensorsWriter writer;
  // 1 + 2^-11 is a half tie (to 1); 1 + 3 * 2^-8 a bfloat16 tie (to 1 + 2^-6).
  ASSERT_TRUE(
      writer.AddFloat32AsF16("h", {1}, {1.0f + std::ldexp(1.0f, -11)}).ok());
  ASSERT_TRUE(
      writer.AddFloat32AsBf16("b", {1}, {1.0f + 3 * std::ldexp(1.0f, -8)})
          .ok());
  absl::StatusOr<std::string> bytes = writer.Serialize();
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  absl::StatusOr<SafetensorsFile> file =
      SafetensorsFile::FromBytes(*bytes, "narrow");
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_THAT(*file->ReadFloat32("h"), ElementsAre(1.0f));
  EXPECT_THAT(*file->ReadFloat32("b"),
              ElementsAre(1.0f + std::ldexp(1.0f, -6)));
}

// ---- Accessor errors.

TEST(SafetensorsAccessTest, WrongDTypeAndMissingTensorAreErrors) {
  absl::StatusOr<SafetensorsFile> file =
      SafetensorsFile::FromBytes(kHandBuiltFile, "hand.safetensors");
  ASSERT_TRUE(file.ok()) << file.status();

  absl::Status status = file->ReadFloat32("token_ids").status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("hand.safetensors"));
  EXPECT_THAT(status.message(), HasSubstr("\"token_ids\" has dtype I64"));

  status = file->ReadInt32("token_ids").status();
  EXPECT_THAT(status.message(), HasSubstr("ReadInt32 reads I32"));
  status = file->ReadInt64("bias").status();
  EXPECT_THAT(status.message(), HasSubstr("\"bias\" has dtype F32"));

  status = file->ReadFloat32("nope").status();
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(status.message(), HasSubstr("hand.safetensors"));
  EXPECT_THAT(status.message(), HasSubstr("no tensor named \"nope\""));
}

// ---- Writer errors.

TEST(SafetensorsWriterTest, RejectsDuplicateNames) {
  SafetensorsWriter writer;
  ASSERT_TRUE(writer.AddFloat32("w", {1}, {1.0f}).ok());
  absl::Status status = writer.AddInt32("w", {1}, std::vector<int32_t>{1});
  EXPECT_EQ(status.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(status.message(), HasSubstr("tensor \"w\" was already added"));
}

TEST(SafetensorsWriterTest, RejectsByteCountMismatch) {
  SafetensorsWriter writer;
  absl::Status status = writer.AddFloat32("w", {2, 3}, {1.0f, 2.0f});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(),
              HasSubstr("tensor \"w\": dtype F32 with shape [2, 3] needs 24 "
                        "bytes, got 8"));
}

TEST(SafetensorsWriterTest, RejectsNegativeDimensionsAndTheMetadataName) {
  SafetensorsWriter writer;
  EXPECT_THAT(writer.AddFloat32("w", {-1}, {}).message(),
              HasSubstr("negative dimension"));
  EXPECT_THAT(writer.AddFloat32("__metadata__", {}, {1.0f}).message(),
              HasSubstr("cannot be a tensor name"));
}

TEST(SafetensorsWriterTest, RejectsNamesThatAreNotUtf8) {
  SafetensorsWriter writer;
  ASSERT_TRUE(writer.AddFloat32("bad\xff", {}, {1.0f}).ok());
  absl::Status status = writer.WriteFile(TempPath("not_utf8.safetensors"));
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("UTF-8"));
}

// ---- Every kind of bad file is rejected with a message naming the file.

TEST(SafetensorsRejectTest, MissingFile) {
  const std::string path = TempPath("does_not_exist.safetensors");
  absl::StatusOr<SafetensorsFile> file = SafetensorsFile::Open(path);
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(file.status().message(), HasSubstr(path));
  EXPECT_THAT(file.status().message(), HasSubstr("No such file or directory"));
}

TEST(SafetensorsRejectTest, BadFileOnDiskIsNamedByPath) {
  const std::string path = TempPath("short.safetensors");
  ASSERT_TRUE(WriteFileAtomically(path, "abc").ok());
  absl::StatusOr<SafetensorsFile> file = SafetensorsFile::Open(path);
  ASSERT_FALSE(file.ok());
  EXPECT_THAT(file.status().message(), HasSubstr(path + ": truncated"));
}

TEST(SafetensorsRejectTest, EmptyFileOnDisk) {
  const std::string path = TempPath("empty.safetensors");
  ASSERT_TRUE(WriteFileAtomically(path, "").ok());
  absl::StatusOr<SafetensorsFile> file = SafetensorsFile::Open(path);
  ASSERT_FALSE(file.ok());
  EXPECT_THAT(file.status().message(), HasSubstr(path + ": truncated"));
}

TEST(SafetensorsRejectTest, TruncatedBeforeHeaderLength) {
  ExpectRejected("\x02\x00\x00\x00"s, absl::StatusCode::kDataLoss,
                 {"truncated", "4 bytes"});
}

TEST(SafetensorsRejectTest, HeaderLengthPastEndOfFile) {
  ExpectRejected(LittleEndian64(100) + "{}", absl::StatusCode::kDataLoss,
                 {"bad header length 100", "only 2 bytes"});
}

TEST(SafetensorsRejectTest, HeaderLengthOverLimit) {
  ExpectRejected(LittleEndian64(200000000) + "{}",
                 absl::StatusCode::kInvalidArgument,
                 {"bad header length 200000000", "limit of 100000000"});
}

TEST(SafetensorsRejectTest, HeaderNotStartingWithBrace) {
  ExpectRejected(MakeFile(" {}", ""), absl::StatusCode::kInvalidArgument,
                 {"must start with '{'"});
}

TEST(SafetensorsRejectTest, HeaderNotAnObject) {
  ExpectRejected(MakeFile("[1, 2]", ""), absl::StatusCode::kInvalidArgument,
                 {"not a JSON object"});
}

TEST(SafetensorsRejectTest, EmptyHeader) {
  ExpectRejected(MakeFile("", ""), absl::StatusCode::kInvalidArgument,
                 {"not a JSON object"});
}

TEST(SafetensorsRejectTest, MalformedJson) {
  ExpectRejected(MakeFile(R"({"t": {"dtype": "F32",})", ""),
                 absl::StatusCode::kInvalidArgument,
                 {"malformed JSON header at byte", "line 1, column"});
}

TEST(SafetensorsRejectTest, HeaderNotUtf8) {
  ExpectRejected(MakeFile("{\"t\xff\": 1}", ""),
                 absl::StatusCode::kInvalidArgument, {"malformed JSON"});
}

TEST(SafetensorsRejectTest, TensorEntryNotAnObject) {
  ExpectRejected(OneTensorFile("5", 0), absl::StatusCode::kInvalidArgument,
                 {"tensor \"t\": entry must be a JSON object", "got 5"});
}

TEST(SafetensorsRejectTest, MissingDType) {
  ExpectRejected(OneTensorFile(R"({"shape":[1],"data_offsets":[0,4]})", 4),
                 absl::StatusCode::kInvalidArgument,
                 {"tensor \"t\": missing \"dtype\""});
}

TEST(SafetensorsRejectTest, MissingShape) {
  ExpectRejected(OneTensorFile(R"({"dtype":"F32","data_offsets":[0,4]})", 4),
                 absl::StatusCode::kInvalidArgument,
                 {"tensor \"t\": missing \"shape\""});
}

TEST(SafetensorsRejectTest, MissingDataOffsets) {
  ExpectRejected(OneTensorFile(R"({"dtype":"F32","shape":[1]})", 4),
                 absl::StatusCode::kInvalidArgument,
                 {"tensor \"t\": missing \"data_offsets\""});
}

TEST(SafetensorsRejectTest, DTypeNotAString) {
  ExpectRejected(
      OneTensorFile(R"({"dtype":4,"shape":[1],"data_offsets":[0,4]})", 4),
      absl::StatusCode::kInvalidArgument,
      {"tensor \"t\": \"dtype\" must be a string, got 4"});
}

TEST(SafetensorsRejectTest, ShapeNotAnArray) {
  ExpectRejected(
      OneTensorFile(R"({"dtype":"F32","shape":"1","data_offsets":[0,4]})", 4),
      absl::StatusCode::kInvalidArgument,
      {"tensor \"t\": \"shape\" must be an array, got \"1\""});
}

TEST(SafetensorsRejectTest, DataOffsetsNotAnArray) {
  ExpectRejected(
      OneTensorFile(R"({"dtype":"F32","shape":[1],"data_offsets":{}})", 4),
      absl::StatusCode::kInvalidArgument,
      {"tensor \"t\": \"data_offsets\" must be an array, got object"});
}

TEST(SafetensorsRejectTest, UnknownDType) {
  ExpectRejected(
      OneTensorFile(R"({"dtype":"F33","shape":[1],"data_offsets":[0,4]})", 4),
      absl::StatusCode::kInvalidArgument,
      {"tensor \"t\": unknown dtype \"F33\""});
}

TEST(SafetensorsRejectTest, UnsupportedDType) {
  ExpectRejected(
      OneTensorFile(R"({"dtype":"F64","shape":[1],"data_offsets":[0,8]})", 8),
      absl::StatusCode::kUnimplemented,
      {"tensor \"t\": unsupported dtype F64"});
}

TEST(SafetensorsRejectTest, NegativeShapeEntry) {
  ExpectRejected(
      OneTensorFile(R"({"dtype":"F32","shape":[2,-1],"data_offsets":[0,4]})",
                    4),
      absl::StatusCode::kInvalidArgument,
      {"tensor \"t\": shape entry 1 must not be negative, got -1"});
}

TEST(SafetensorsRejectTest, NonIntegerShapeEntry) {
  ExpectRejected(
      OneTensorFile(R"({"dtype":"F32","shape":[1.5],"data_offsets":[0,4]})", 4),
      absl::StatusCode::kInvalidArgument,
      {"tensor \"t\": shape entry 0 must be a non-negative integer, got the "
       "non-integer 1.5"});
}

TEST(SafetensorsRejectTest, ShapeWithTooManyElements) {
  ExpectRejected(
      OneTensorFile(R"({"dtype":"F32","shape":[4294967296,4294967296],)"
                    R"("data_offsets":[0,4]})",
                    4),
      absl::StatusCode::kInvalidArgument, {"tensor \"t\": shape", "too many"});
}

TEST(SafetensorsRejectTest, DataOffsetsNotTwoEntries) {
  ExpectRejected(
      OneTensorFile(R"({"dtype":"F32","shape":[1],"data_offsets":[0,4,8]})", 8),
      absl::StatusCode::kInvalidArgument,
      {"tensor \"t\": \"data_offsets\" must be two integers [begin, end], got "
       "3 entries"});
}

TEST(SafetensorsRejectTest, NegativeDataOffset) {
  ExpectRejected(
      OneTensorFile(R"({"dtype":"F32","shape":[1],"data_offsets":[-4,0]})", 4),
      absl::StatusCode::kInvalidArgument,
      {"tensor \"t\": data_offsets begin must not be negative, got -4"});
}

TEST(SafetensorsRejectTest, NonIntegerDataOffset) {
  ExpectRejected(
      OneTensorFile(R"({"dtype":"F32","shape":[1],"data_offsets":[0,"4"]})", 4),
      absl::StatusCode::kInvalidArgument,
      {"tensor \"t\": data_offsets end must be a non-negative integer, got "
       "\"4\""});
}

TEST(SafetensorsRejectTest, DataOffsetsBeginAfterEnd) {
  ExpectRejected(
      OneTensorFile(R"({"dtype":"F32","shape":[1],"data_offsets":[8,4]})", 8),
      absl::StatusCode::kInvalidArgument,
      {"tensor \"t\": data_offsets [8, 4): begin is after end"});
}

TEST(SafetensorsRejectTest, DataOffsetsOutOfRange) {
  ExpectRejected(
      OneTensorFile(R"({"dtype":"F32","shape":[4],"data_offsets":[0,16]})", 8),
      absl::StatusCode::kDataLoss,
      {"tensor \"t\": data_offsets [0, 16) out of range",
       "data buffer has only 8 bytes"});
}

TEST(SafetensorsRejectTest, DTypeShapeByteCountMismatch) {
  ExpectRejected(
      OneTensorFile(R"({"dtype":"F32","shape":[2,3],"data_offsets":[0,20]})",
                    20),
      absl::StatusCode::kInvalidArgument,
      {"tensor \"t\": dtype/shape/byte-count mismatch: dtype F32 with shape "
       "[2, 3] needs 24 bytes, but data_offsets [0, 20) span 20 bytes"});
}

TEST(SafetensorsRejectTest, OverlappingTensors) {
  ExpectRejected(
      MakeFile(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
               R"("b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
               std::string(12, '\0')),
      absl::StatusCode::kInvalidArgument,
      {"overlapping tensors: \"b\" begins at byte 4", "inside \"a\""});
}

TEST(SafetensorsRejectTest, HoleBetweenTensors) {
  ExpectRejected(
      MakeFile(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
               R"("b":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}})",
               std::string(12, '\0')),
      absl::StatusCode::kInvalidArgument,
      {"bytes [4, 8) of the data buffer are not covered by any tensor",
       "tile the data buffer exactly"});
}

TEST(SafetensorsRejectTest, HoleAtStartOfBuffer) {
  ExpectRejected(
      OneTensorFile(R"({"dtype":"F32","shape":[1],"data_offsets":[4,8]})", 8),
      absl::StatusCode::kInvalidArgument,
      {"bytes [0, 4) of the data buffer are not covered by any tensor"});
}

TEST(SafetensorsRejectTest, TrailingBytes) {
  ExpectRejected(
      OneTensorFile(R"({"dtype":"F32","shape":[1],"data_offsets":[0,4]})", 8),
      absl::StatusCode::kInvalidArgument,
      {"trailing bytes [4, 8) of the data buffer are not covered by any "
       "tensor",
       "tile the data buffer exactly"});
}

TEST(SafetensorsRejectTest, TrailingBytesWithoutTensors) {
  ExpectRejected(MakeFile("{}", "xyz"), absl::StatusCode::kInvalidArgument,
                 {"trailing bytes [0, 3)"});
}

TEST(SafetensorsRejectTest, MetadataNotAnObject) {
  ExpectRejected(MakeFile(R"({"__metadata__":["a"]})", ""),
                 absl::StatusCode::kInvalidArgument,
                 {"\"__metadata__\" must be a JSON object of strings, got "
                  "array"});
}

TEST(SafetensorsRejectTest, MetadataValueNotAString) {
  ExpectRejected(MakeFile(R"({"__metadata__":{"step":100}})", ""),
                 absl::StatusCode::kInvalidArgument,
                 {"\"__metadata__\" must be a JSON object of strings; \"step\" "
                  "is 100"});
}

TEST(SafetensorsRejectTest, DuplicateTensorNames) {
  ExpectRejected(
      MakeFile(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
               R"("a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
               std::string(8, '\0')),
      absl::StatusCode::kInvalidArgument, {"duplicate tensor name \"a\""});
}

TEST(SafetensorsRejectTest, DuplicateKeyInsideAnEntry) {
  ExpectRejected(OneTensorFile(R"({"dtype":"F32","dtype":"I32","shape":[1],)"
                               R"("data_offsets":[0,4]})",
                               4),
                 absl::StatusCode::kInvalidArgument,
                 {"duplicate key \"dtype\" inside a header entry"});
}

}  // namespace
}  // namespace bertlab
