#include <array>
#include <cstring>

#include "mmaemu/format.hpp"

namespace mmaemu {
namespace {

constexpr std::array<FormatDesc, 6> kFormats = {{
    // id, name, dtype, bits, exp, frac, container frac, bias, specials, canonical NaN
    {Format::f8_e4m3, "f8_e4m3", "F8_E4M3", 8, 4, 3, 3, 7, SpecialEncoding::nan_only_max, 0x7F},
    {Format::f8_e5m2, "f8_e5m2", "F8_E5M2", 8, 5, 2, 2, 15, SpecialEncoding::ieee, 0x7F},
    {Format::f16, "f16", "F16", 16, 5, 10, 10, 15, SpecialEncoding::ieee, 0x7FFF},
    {Format::bf16, "bf16", "BF16", 16, 8, 7, 7, 127, SpecialEncoding::ieee, 0x7FFF},
    {Format::tf32, "tf32", "F32", 32, 8, 10, 23, 127, SpecialEncoding::ieee, 0x7FFFFFFF},
    {Format::f32, "f32", "F32", 32, 8, 23, 23, 127, SpecialEncoding::ieee, 0x7FFFFFFF},
}};

}  // namespace

int FormatDesc::max_exponent() const {
  const int all_ones = (1 << exponent_bits) - 1;
  return (specials == SpecialEncoding::ieee ? all_ones - 1 : all_ones) - bias;
}

uint64_t FormatDesc::max_significand() const {
  const uint64_t full = (uint64_t{2} << fraction_bits) - 1;
  // e4m3fn: the all-ones fraction in the top binade is NaN, so the largest is one below it.
  return specials == SpecialEncoding::nan_only_max ? full - 1 : full;
}

const FormatDesc& describe(Format format) {
  return kFormats[static_cast<size_t>(format)];
}

std::string fp8_pair_name(Format a, Format b) {
  auto short_name = [](Format f) {
    const std::string_view name = describe(f).name;
    return std::string(name.starts_with("f8_") ? name.substr(3) : name);
  };
  return short_name(a) + "x" + short_name(b);
}

std::optional<Format> format_from_name(std::string_view name) {
  for (const auto& d : kFormats)
    if (d.name == name) return d.id;
  return std::nullopt;
}

std::optional<Format> format_from_safetensors_dtype(std::string_view dtype) {
  for (const auto& d : kFormats)
    if (d.id != Format::tf32 && d.safetensors_dtype == dtype) return d.id;
  return std::nullopt;
}

uint32_t load_bits(Format format, std::span<const uint8_t> bytes, size_t i) {
  const int n = describe(format).storage_bytes();
  uint32_t v = 0;
  for (int b = 0; b < n; ++b) v |= uint32_t{bytes[i * n + b]} << (8 * b);
  return v;
}

void store_bits(Format format, std::span<uint8_t> bytes, size_t i, uint32_t bits) {
  const int n = describe(format).storage_bytes();
  for (int b = 0; b < n; ++b) bytes[i * n + b] = static_cast<uint8_t>(bits >> (8 * b));
}

}  // namespace mmaemu
