#include "mmaemu/wide_uint.hpp"

namespace mmaemu {

WideUint WideUint::product(uint64_t a, uint64_t b) {
  const unsigned __int128 p = static_cast<unsigned __int128>(a) * b;
  WideUint r;
  r.limbs_[0] = static_cast<uint64_t>(p);
  r.limbs_[1] = static_cast<uint64_t>(p >> 64);
  return r;
}

bool WideUint::is_zero() const {
  for (uint64_t limb : limbs_)
    if (limb != 0) return false;
  return true;
}

int WideUint::bit_length() const {
  for (int i = kLimbs - 1; i >= 0; --i)
    if (limbs_[i] != 0) return 64 * i + 64 - __builtin_clzll(limbs_[i]);
  return 0;
}

bool WideUint::bit(int index) const {
  if (index < 0 || index >= kBits) return false;
  return (limbs_[index / 64] >> (index % 64)) & 1u;
}

bool WideUint::any_bit_below(int count) const {
  if (count <= 0) return false;
  if (count >= kBits) return !is_zero();
  const int full = count / 64;
  for (int i = 0; i < full; ++i)
    if (limbs_[i] != 0) return true;
  const int rest = count % 64;
  return rest != 0 && (limbs_[full] & ((uint64_t{1} << rest) - 1)) != 0;
}

WideUint WideUint::shifted_left(int count) const {
  if (count < 0) return shifted_right(-count);
  if (count == 0) return *this;
  WideUint r;
  if (count >= kBits) return r;
  const int limb_shift = count / 64, bit_shift = count % 64;
  for (int i = kLimbs - 1; i >= limb_shift; --i) {
    uint64_t v = limbs_[i - limb_shift] << bit_shift;
    if (bit_shift != 0 && i - limb_shift - 1 >= 0)
      v |= limbs_[i - limb_shift - 1] >> (64 - bit_shift);
    r.limbs_[i] = v;
  }
  return r;
}

WideUint WideUint::shifted_right(int count) const {
  if (count <= 0) return shifted_left(-count);
  WideUint r;
  if (count >= kBits) return r;
  const int limb_shift = count / 64, bit_shift = count % 64;
  for (int i = 0; i + limb_shift < kLimbs; ++i) {
    uint64_t v = limbs_[i + limb_shift] >> bit_shift;
    if (bit_shift != 0 && i + limb_shift + 1 < kLimbs)
      v |= limbs_[i + limb_shift + 1] << (64 - bit_shift);
    r.limbs_[i] = v;
  }
  return r;
}

WideUint operator+(const WideUint& a, const WideUint& b) {
  WideUint r;
  unsigned carry = 0;
  for (int i = 0; i < WideUint::kLimbs; ++i) {
    const unsigned __int128 s = static_cast<unsigned __int128>(a.limbs_[i]) + b.limbs_[i] + carry;
    r.limbs_[i] = static_cast<uint64_t>(s);
    carry = static_cast<unsigned>(s >> 64);
  }
  return r;
}

WideUint operator-(const WideUint& a, const WideUint& b) {
  WideUint r;
  unsigned borrow = 0;
  for (int i = 0; i < WideUint::kLimbs; ++i) {
    const uint64_t ai = a.limbs_[i], bi = b.limbs_[i];
    const uint64_t d = ai - bi - borrow;
    borrow = (ai < bi || (ai == bi && borrow)) ? 1u : 0u;
    r.limbs_[i] = d;
  }
  return r;
}

WideUint operator*(const WideUint& a, const WideUint& b) {
  if (a.fits_in_64() && b.fits_in_64()) return WideUint::product(a.limbs_[0], b.limbs_[0]);
  WideUint r;
  for (int i = 0; i < WideUint::kLimbs; ++i) {
    uint64_t carry = 0;
    for (int j = 0; i + j < WideUint::kLimbs; ++j) {
      const unsigned __int128 t =
          static_cast<unsigned __int128>(a.limbs_[i]) * b.limbs_[j] + r.limbs_[i + j] + carry;
      r.limbs_[i + j] = static_cast<uint64_t>(t);
      carry = static_cast<uint64_t>(t >> 64);
    }
  }
  return r;
}

int compare(const WideUint& a, const WideUint& b) {
  for (int i = WideUint::kLimbs - 1; i >= 0; --i) {
    if (a.limbs_[i] != b.limbs_[i]) return a.limbs_[i] < b.limbs_[i] ? -1 : 1;
  }
  return 0;
}

}  // namespace mmaemu
