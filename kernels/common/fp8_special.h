// Which FP8 codes are NaN or Inf (the kernels mark their rows), and the special class of a product
// and of a sum of such products (special_elements.h finishes those elements on the device).
// Compiled for the host too: tests/unit/kernel_convert_test.cpp checks them against the format
// table and the exact arithmetic.
#pragma once

#include "host_device.h"

// e4m3 has NaN only (S.1111.111); e5m2 has Inf and NaN (exponent 11111).
MMAEMU_HD inline bool special_code(unsigned char code, int e5m2) {
  return e5m2 ? (code & 0x7Cu) == 0x7Cu : (code & 0x7Fu) == 0x7Fu;
}

constexpr unsigned kProductNaN = 1, kProductPlusInfinity = 2, kProductMinusInfinity = 4;

// The special class of the product of codes x and y (their formats: e5m2 or e4m3): 0 where both
// are finite, else kProductNaN or the infinity's sign. Subnormals are not zeros (no covered preset
// flushes them).
MMAEMU_HD inline unsigned special_product(unsigned char x, int x_e5m2, unsigned char y,
                                          int y_e5m2) {
  const bool x_special = special_code(x, x_e5m2), y_special = special_code(y, y_e5m2);
  if (!x_special && !y_special) return 0;
  // e4m3's special codes are NaNs; e5m2's are infinities at 0x7C (either sign), NaNs above.
  const bool x_nan = x_special && !(x_e5m2 && (x & 0x7Fu) == 0x7Cu),
             y_nan = y_special && !(y_e5m2 && (y & 0x7Fu) == 0x7Cu);
  if (x_nan || y_nan || (x & 0x7Fu) == 0 || (y & 0x7Fu) == 0) return kProductNaN;
  return (x ^ y) & 0x80u ? kProductMinusInfinity : kProductPlusInfinity;
}

// The FP32 sum of an element whose products' special classes or together to `classes` (nonzero).
MMAEMU_HD inline unsigned special_sum_bits(unsigned classes) {
  if ((classes & kProductNaN) ||
      ((classes & kProductPlusInfinity) && (classes & kProductMinusInfinity)))
    return 0x7FC00000u;
  return classes & kProductMinusInfinity ? 0xFF800000u : 0x7F800000u;
}
