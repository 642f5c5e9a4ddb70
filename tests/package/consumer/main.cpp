// Emulates one 1 x 1 x 32 scaled matmul through the installed library and checks its bits.
#include <mmaemu/profile.hpp>
#include <mmaemu/scaled_mm.hpp>
#include <mmaemu/version.hpp>

#include <cstdio>
#include <vector>

int main() {
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
