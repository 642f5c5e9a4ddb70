// libFuzzer target: a truth set's manifest.json (recordings, files, environment), read as a set.
#include "fuzz_file.hpp"
#include "mmaemu/truth.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  write_fuzz_file("manifest.json", data, size);
  (void)mmaemu::load_truth_set(fuzz_scratch_dir());
  return 0;
}
