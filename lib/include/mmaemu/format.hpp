// Number formats as data. Every format the emulator reads or writes is one FormatDesc row; the
// codecs (exact.hpp) are driven by the row, not by per-format branches.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace mmaemu {

enum class Format : uint8_t { f8_e4m3, f8_e5m2, f16, bf16, tf32, f32 };

inline constexpr Format kAllFormats[] = {Format::f8_e4m3, Format::f8_e5m2, Format::f16,
                                         Format::bf16,    Format::tf32,    Format::f32};

// How the all-ones exponent field is used.
enum class SpecialEncoding : uint8_t {
  ieee,          // all-ones exponent: zero fraction = infinity, else NaN
  nan_only_max,  // e4m3fn: no infinities; only S.1111.111 is NaN, the rest of that binade is finite
};

struct FormatDesc {
  Format id;
  std::string_view name;  // the project's name: "f8_e4m3", "bf16", ...
  std::string_view
      safetensors_dtype;  // "F8_E4M3", ... ("F32" for tf32, stored in an f32 container)
  int storage_bits;       // bits of one stored element
  int exponent_bits;
  int fraction_bits;            // fraction bits the value has
  int container_fraction_bits;  // width of the fraction field (tf32: 23, low 13 ignored)
  int bias;
  SpecialEncoding specials;
  uint32_t canonical_nan;  // the NaN the hardware writes (positive, quiet)

  int storage_bytes() const { return storage_bits / 8; }
  int min_exponent() const { return 1 - bias; }  // exponent of the smallest normal
  int max_exponent() const;                      // exponent of the largest finite binade
  bool has_infinity() const { return specials == SpecialEncoding::ieee; }
  uint32_t sign_mask() const { return uint32_t{1} << (storage_bits - 1); }
  // The largest finite significand (hidden bit included) at max_exponent().
  uint64_t max_significand() const;
};

const FormatDesc& describe(Format format);
std::optional<Format> format_from_name(std::string_view name);
// An FP8 operand pair as the command line and the logs name it: "e4m3xe5m2" (names without
// their "f8_").
std::string fp8_pair_name(Format a, Format b);
std::optional<Format> format_from_safetensors_dtype(std::string_view dtype);

enum class Rounding : uint8_t { nearest_even, toward_zero };

// What happens to a finite result too large for the format.
enum class Overflow : uint8_t {
  ieee,      // nearest-even -> infinity (NaN where the format has none); toward-zero -> max finite
  saturate,  // max finite, also for infinite inputs (PTX cvt .satfinite); NaN stays NaN
  to_infinity,  // always infinity (NaN where the format has none), also under toward-zero
};

// Reads one little-endian element of `format` at index `i` of a raw byte buffer.
uint32_t load_bits(Format format, std::span<const uint8_t> bytes, size_t i);
void store_bits(Format format, std::span<uint8_t> bytes, size_t i, uint32_t bits);

}  // namespace mmaemu
