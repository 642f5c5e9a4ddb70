// Which FP8 codes are NaN or Inf (the kernels flag their rows for the host's oracle). Compiled
// for the host too: tests/unit/kernel_convert_test.cpp checks it against the format table.
#pragma once

#include "host_device.h"

// e4m3 has NaN only (S.1111.111); e5m2 has Inf and NaN (exponent 11111).
MMAEMU_HD inline bool special_code(unsigned char code, int e5m2) {
  return e5m2 ? (code & 0x7Cu) == 0x7Cu : (code & 0x7Fu) == 0x7Fu;
}
