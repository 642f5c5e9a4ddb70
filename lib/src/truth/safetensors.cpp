#include <algorithm>
#include <nlohmann/json.hpp>

#include "json_fields.hpp"
#include "json_object.hpp"
#include "mmaemu/safetensors.hpp"

namespace mmaemu {
namespace {

constexpr uint64_t kMaxHeaderBytes = 100u << 20;  // the reference implementation's limit

Error malformed(const std::string& origin, const std::string& what) {
  return Error(Errc::malformed, origin + ": " + what);
}

}  // namespace

int safetensors_dtype_size(std::string_view dtype) {
  static const std::pair<std::string_view, int> kSizes[] = {
      {"BOOL", 1}, {"U8", 1},  {"I8", 1},  {"F8_E4M3", 1}, {"F8_E5M2", 1},
      {"I16", 2},  {"U16", 2}, {"F16", 2}, {"BF16", 2},    {"I32", 4},
      {"U32", 4},  {"F32", 4}, {"I64", 8}, {"U64", 8},     {"F64", 8}};
  for (auto [name, size] : kSizes)
    if (name == dtype) return size;
  return 0;
}

int64_t TensorInfo::element_count() const {
  // A zero anywhere makes the count zero, whatever the other entries (each at most 2^40, so a
  // product of nonzero entries is bounded by the bytes the file holds: parse checks that).
  for (int64_t d : shape)
    if (d == 0) return 0;
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

Result<SafetensorsFile> SafetensorsFile::read(const std::filesystem::path& path) {
  auto bytes = read_file_bytes(path);
  if (!bytes) return bytes.error();
  return parse(std::move(bytes).value(), path.string());
}

Result<SafetensorsFile> SafetensorsFile::parse(std::vector<uint8_t> bytes, std::string origin) {
  SafetensorsFile f;
  f.origin_ = std::move(origin);
  if (bytes.size() < 8)
    return malformed(f.origin_, "truncated: shorter than the 8-byte header length");
  uint64_t header_length = 0;
  for (int i = 0; i < 8; ++i) header_length |= uint64_t{bytes[i]} << (8 * i);
  if (header_length > kMaxHeaderBytes || header_length > bytes.size() - 8)
    return malformed(f.origin_, "truncated header: it claims " + std::to_string(header_length) +
                                    " bytes, the file has " + std::to_string(bytes.size() - 8));
  const auto* text = reinterpret_cast<const char*>(bytes.data() + 8);
  auto parsed = parse_json_object({text, static_cast<size_t>(header_length)}, f.origin_, "header",
                                  "header is not a JSON object");
  if (!parsed) return parsed.error();
  const nlohmann::json& header = *parsed;
  f.data_start_ = 8 + header_length;
  const uint64_t data_size = bytes.size() - f.data_start_;
  for (auto& [name, entry] : header.items()) {
    if (name == "__metadata__") {
      if (!entry.is_object()) return malformed(f.origin_, "__metadata__ is not an object");
      for (auto& [key, value] : entry.items()) {
        if (!value.is_string())
          return malformed(f.origin_, "__metadata__." + key + " is not a string");
        f.metadata_[key] = value.get<std::string>();
      }
      continue;
    }
    const std::string where = "tensor '" + name + "'";
    if (!entry.is_object()) return malformed(f.origin_, where + " is not an object");
    const JsonFields fields(entry, f.origin_ + ": " + where);
    TensorInfo t;
    t.name = name;
    MMAEMU_TRY(t.dtype, fields.string("dtype"));
    const int size = safetensors_dtype_size(t.dtype);
    if (size == 0) return malformed(f.origin_, where + ": unknown dtype '" + t.dtype + "'");
    auto shape = fields.array("shape");
    if (!shape) return shape.error();
    for (auto& d : **shape) {
      if (!d.is_number_unsigned() || d.get<uint64_t>() > (uint64_t{1} << 40))
        return fields.error("shape", "must hold sizes up to 2^40");
      t.shape.push_back(d.get<int64_t>());
    }
    auto offsets = fields.array("data_offsets");
    if (!offsets || (*offsets)->size() != 2 || !(**offsets)[0].is_number_unsigned() ||
        !(**offsets)[1].is_number_unsigned())
      return fields.error("data_offsets", "must be two unsigned integers");
    t.begin = (**offsets)[0].get<uint64_t>();
    t.end = (**offsets)[1].get<uint64_t>();
    if (t.begin > t.end || t.end > data_size)
      return malformed(f.origin_, where + ": data_offsets [" + std::to_string(t.begin) + ", " +
                                      std::to_string(t.end) + ") outside the " +
                                      std::to_string(data_size) +
                                      "-byte data section (truncated?)");
    // Shapes are bounded above, so this product cannot overflow for a sane rank.
    if (t.shape.size() > 8) return malformed(f.origin_, where + ": rank above 8");
    long double bytes_needed = static_cast<long double>(size);
    for (int64_t d : t.shape) bytes_needed *= static_cast<long double>(d);
    if (bytes_needed != static_cast<long double>(t.end - t.begin))
      return malformed(f.origin_, where + ": " + std::to_string(t.end - t.begin) +
                                      " bytes do not hold its shape of " + t.dtype);
    f.tensors_.push_back(std::move(t));
  }
  // Tensors must not share bytes: one written over another would be two claims on one buffer.
  std::vector<const TensorInfo*> by_offset;
  for (const auto& t : f.tensors_)
    if (t.end > t.begin) by_offset.push_back(&t);
  std::sort(by_offset.begin(), by_offset.end(),
            [](const TensorInfo* a, const TensorInfo* b) { return a->begin < b->begin; });
  for (size_t i = 1; i < by_offset.size(); ++i)
    if (by_offset[i]->begin < by_offset[i - 1]->end)
      return malformed(f.origin_, "tensors '" + by_offset[i - 1]->name + "' and '" +
                                      by_offset[i]->name + "' overlap in the data section");
  f.bytes_ = std::move(bytes);
  return f;
}

const TensorInfo* SafetensorsFile::find(std::string_view name) const {
  for (const auto& t : tensors_)
    if (t.name == name) return &t;
  return nullptr;
}

std::span<const uint8_t> SafetensorsFile::data(const TensorInfo& tensor) const {
  return std::span<const uint8_t>(bytes_).subspan(data_start_ + tensor.begin,
                                                  tensor.end - tensor.begin);
}

Result<void> write_safetensors(const std::filesystem::path& path,
                               std::span<const TensorToWrite> tensors,
                               const std::map<std::string, std::string>& metadata) {
  nlohmann::json header = nlohmann::json::object();
  if (!metadata.empty()) header["__metadata__"] = metadata;
  uint64_t offset = 0;
  for (const auto& t : tensors) {
    const int size = safetensors_dtype_size(t.dtype);
    if (size == 0)
      return Error(Errc::invalid_argument, "tensor '" + t.name + "': unknown dtype " + t.dtype);
    int64_t count = 1;
    for (int64_t d : t.shape) count *= d;
    if (static_cast<uint64_t>(count) * size != t.data.size())
      return Error(Errc::invalid_argument,
                   "tensor '" + t.name + "': data size does not match its shape");
    header[t.name] = {
        {"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {offset, offset + t.data.size()}}};
    offset += t.data.size();
  }
  std::string text = header.dump();
  while ((text.size() + 8) % 8 != 0) text.push_back(' ');  // align the data section
  std::vector<uint8_t> bytes(8);
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<uint8_t>(uint64_t{text.size()} >> (8 * i));
  bytes.insert(bytes.end(), text.begin(), text.end());
  for (const auto& t : tensors) bytes.insert(bytes.end(), t.data.begin(), t.data.end());
  return write_file_atomically(path, bytes);
}

}  // namespace mmaemu
