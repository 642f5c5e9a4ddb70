// A fixed-width unsigned integer for exact arithmetic on floating-point values.
// Hand-written: the oracle needs only shifts, adds, compares and bit access on a few hundred bits,
// and no Debian-packaged library offers that without heap allocation per operation.
// 384 bits hold the exact sum of any two f32 values (exponents -149 ... 127, plus a carry).
#pragma once

#include <array>
#include <cstdint>

namespace mmaemu {

class WideUint {
 public:
  static constexpr int kLimbs = 6;
  static constexpr int kBits = 64 * kLimbs;

  constexpr WideUint() = default;
  constexpr explicit WideUint(uint64_t value) { limbs_[0] = value; }
  static WideUint product(uint64_t a, uint64_t b);

  bool is_zero() const;
  int bit_length() const;               // 0 for zero
  bool bit(int index) const;            // false beyond the width
  bool any_bit_below(int count) const;  // is any of bits [0, count) set?
  uint64_t low64() const { return limbs_[0]; }
  bool fits_in_64() const { return bit_length() <= 64; }

  // Bits shifted or carried past the top are lost: the callers' operands (decoded formats of at
  // most 24 significant bits, exponents within f32's range) never come near 384 bits.
  WideUint shifted_left(int count) const;
  WideUint shifted_right(int count) const;  // truncates

  friend WideUint operator+(const WideUint& a, const WideUint& b);
  friend WideUint operator-(const WideUint& a, const WideUint& b);  // requires a >= b
  friend WideUint operator*(const WideUint& a, const WideUint& b);
  friend int compare(const WideUint& a, const WideUint& b);  // -1, 0, 1
  friend bool operator==(const WideUint& a, const WideUint& b) { return compare(a, b) == 0; }

 private:
  std::array<uint64_t, kLimbs> limbs_{};
};

}  // namespace mmaemu
