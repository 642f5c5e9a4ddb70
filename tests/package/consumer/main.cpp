// Uses an installed mmaemu as a C++ user would: emulates one 1 x 1 x 32 scaled matmul and checks
// its bits; given a truth set's folder, replays it through the library and prints the verdict
// line `mmaemu replay` prints (run_package_test.cmake compares the two).
#include <mmaemu/profile.hpp>
#include <mmaemu/scaled_mm.hpp>
#include <mmaemu/truth_set_replay.hpp>
#include <mmaemu/version.hpp>

#include <cstdio>
#include <vector>

namespace {

int emulate_one() {
  auto profile = mmaemu::load_profile("hopper");
  if (!profile) {
    std::fprintf(stderr, "%s\n", profile.error().message().c_str());
    return 1;
  }
  std::vector<uint8_t> a(32, 0x38), b(32, 0x38);  // ones in e4m3
  mmaemu::ScaledMmCall call;
  call.m = call.n = 1;
  call.k = 32;
  call.a = a;
  call.b = b;
  call.out_dtype = mmaemu::Format::f32;
  auto plan = profile->resolve(call);
  if (!plan) return 1;
  auto out = mmaemu::emulate_oracle(*plan, call);
  if (!out || out->size() != 4) return 1;
  const uint32_t bits = (*out)[0] | (*out)[1] << 8 | (*out)[2] << 16 | uint32_t((*out)[3]) << 24;
  std::printf("mmaemu %s: 32 x (1 x 1) = 0x%08X\n", mmaemu::kVersion, bits);
  return bits == 0x42000000 ? 0 : 1;  // 32.0
}

int replay(const char* folder) {
  auto set = mmaemu::load_truth_set(folder);
  if (!set) {
    std::fprintf(stderr, "%s\n", set.error().message().c_str());
    return 1;
  }
  auto report = mmaemu::replay_truth_set(*set, {});
  if (!report) {
    std::fprintf(stderr, "%s\n", report.error().message().c_str());
    return 1;
  }
  std::printf("replay: %zu/%zu recordings bit-exact\n", report->bit_exact(),
              report->outcomes.size());
  return report->all_bit_exact() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  return argc > 1 ? replay(argv[1]) : emulate_one();
}
