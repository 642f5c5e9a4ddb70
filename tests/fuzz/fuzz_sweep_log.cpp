// libFuzzer target: an mmaemu-sweep/2 log (safetensors with keys, algorithms and axes metadata).
#include "fuzz_file.hpp"
#include "mmaemu/tools/sweep.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto path = write_fuzz_file("log.safetensors", data, size);
  (void)mmaemu::SweepLog::read(path);
  return 0;
}
