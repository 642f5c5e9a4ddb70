// The device-resident entry point (emulate_cuda_resident): its call checked and planned on the CPU;
// with a GPU, its bits against the host-memory CUDA path and the fast CPU path (and the cuda, h4,
// v4 and v9 host paths against the CPU path) on calls that take every route (tensorwise scales
// whose product rounds, rowwise scales, bf16 and f16 biases with subnormals, split K, h4's narrow
// and wide tiles, rows with a NaN or an infinity that the device finishes, and FP8 outputs of an
// infinity that the host finishes, with and without rowwise scales and a bias).
// Without a GPU the GPU part checks that the entry point says why it cannot run.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "mmaemu/emulate.hpp"
#include "mmaemu/profile.hpp"
#include "mmaemu/tools/cuda_backend.hpp"

using namespace mmaemu;

namespace {

DeviceScaledMmCall addressed_call() {
  DeviceScaledMmCall c;
  c.m = 16, c.n = 4096, c.k = 14336;
  c.a = 0x1000, c.b = 0x2000, c.scale_a = 0x3000, c.scale_b = 0x3100, c.out = 0x4000;
  return c;
}

OwnedScaledMmCall drawn_call(int64_t m, int64_t n, int64_t k, uint32_t seed) {
  OwnedScaledMmCall c;
  c.m = m, c.n = n, c.k = k;
  uint32_t x = seed;
  auto next = [&x] { return x = x * 1664525u + 1013904223u; };
  c.a.resize(static_cast<size_t>(m * k));
  c.b.resize(static_cast<size_t>(n * k));
  // Finite e4m3 codes (0x7F and 0xFF are NaN) of moderate size.
  for (auto* v : {&c.a, &c.b})
    for (auto& code : *v) code = static_cast<uint8_t>((next() >> 24) & 0xBF) & 0xF7;
  c.scale_a = {0x3F800000u};
  c.scale_b = {0x3E800000u};  // 0.25
  return c;
}

}  // namespace

TEST_CASE("a resident call's shape carries what planning reads") {
  DeviceScaledMmCall c = addressed_call();
  c.rowwise = true;
  c.bias_dtype = Format::bf16;
  c.bias = 0x5000;
  const ScaledMmCall s = c.shape();
  CHECK(s.m == 16);
  CHECK(s.n == 4096);
  CHECK(s.k == 14336);
  CHECK(s.scale_a.rowwise());
  CHECK(s.scale_b.rowwise());
  REQUIRE(s.bias);
  CHECK(s.bias->format == Format::bf16);
  auto profile = load_profile("hopper");
  REQUIRE(profile);
  c.rowwise = false;
  c.bias_dtype.reset();
  auto plan = profile->resolve(c.shape());
  REQUIRE(plan);
  CHECK(plan->split_k == 2);  // 16x4096x14336 at 1 MiB: two slices on the H200 (issue 15's table)
}

TEST_CASE("a resident call is checked field by field") {
  CHECK(validate(addressed_call()));
  auto message = [](const DeviceScaledMmCall& c) {
    auto ok = validate(c);
    REQUIRE(!ok);
    CHECK(ok.error().code() == Errc::invalid_argument);
    return ok.error().message();
  };
  DeviceScaledMmCall c = addressed_call();
  c.k = 0;
  CHECK_THAT(message(c), Catch::Contains("must be positive"));
  c = addressed_call();
  c.a_dtype = c.b_dtype = Format::f8_e5m2;
  CHECK_THAT(message(c), Catch::Contains("e5m2 x f8_e5m2"));
  c = addressed_call();
  c.a_dtype = Format::bf16;
  CHECK_THAT(message(c), Catch::Contains("not an FP8 format"));
  c = addressed_call();
  c.out_dtype = Format::tf32;
  CHECK_THAT(message(c), Catch::Contains("out dtype tf32 is not supported"));
  c = addressed_call();
  c.scale_b = 0;
  CHECK_THAT(message(c), Catch::Contains("scale_b has no device address"));
  c = addressed_call();
  c.out = 0;
  CHECK_THAT(message(c), Catch::Contains("out has no device address"));
  c = addressed_call();
  c.bias_dtype = Format::f32;
  c.bias = 0x5000;
  CHECK_THAT(message(c), Catch::Contains("bias must be bf16 or f16"));
  c.bias_dtype = Format::f16;
  c.bias = 0;
  CHECK_THAT(message(c), Catch::Contains("bias has a dtype but no device address"));
  c = addressed_call();
  c.m = c.n = c.k = int64_t{1} << 40;
  CHECK_THAT(message(c), Catch::Contains("64-bit count"));
}

TEST_CASE("resident calls give the host path's bits, or say why no GPU runs them") {
  auto profile = load_profile("hopper");
  REQUIRE(profile);
  auto device = cuda_backend_device();
  if (!device) {
    // No GPU here: the entry point names the reason, as emulate_cuda does.
    auto plan = profile->resolve(addressed_call().shape());
    REQUIRE(plan);
    auto ran = emulate_cuda_resident(*plan, addressed_call());
    REQUIRE(!ran);
    CHECK(ran.error().message() == device.error().message());
    auto copy = ResidentCopy::upload(drawn_call(4, 16, 32, 1).view());
    CHECK(!copy);
    DeviceScaledMmCall unaddressed = addressed_call();
    unaddressed.a = 0;  // a call at fault is named as such before the GPU is looked for
    auto refused = emulate_cuda_resident(*plan, unaddressed);
    REQUIRE(!refused);
    CHECK(refused.error().code() == Errc::invalid_argument);
    WARN("no GPU: " << device.error().message());
    return;
  }
  struct Case {
    int64_t m, n, k;
    bool rowwise;
    std::optional<Format> bias;
    uint8_t special;  // a code put in row 5 of a (0: none): a NaN, or an e5m2 infinity
    Format out;
    Format a_dtype = Format::f8_e4m3;
    bool host_finishes = false;  // the device leaves row 5 to the host (FP8 outputs of infinity)
  };
  // h4's tiles: 16 x 4096 and 200 x 384 take the narrow (64-row) kernels, 1100 x 1040 the wide.
  const Case cases[] = {
      {64, 96, 256, false, {}, 0, Format::bf16},
      {100, 200, 3000, true, {}, 0, Format::f32},
      {16, 4096, 14336, false, {}, 0, Format::bf16},  // two slices
      {33, 48, 512, false, Format::f16, 0, Format::f16},
      {200, 384, 2048, false, Format::bf16, 0, Format::bf16},
      {1100, 1040, 256, true, Format::f16, 0, Format::bf16},
      {40, 64, 384, false, {}, 0x7F, Format::bf16},
      {40, 64, 384, true, Format::bf16, 0x7F, Format::bf16},
      {40, 64, 384, false, {}, 0xFC, Format::f16, Format::f8_e5m2},
      {40, 64, 384, true, Format::f16, 0x7C, Format::f8_e4m3, Format::f8_e5m2, true},
      {8, 32, 128, false, {}, 0, Format::f8_e4m3}};
  uint32_t seed = 7;
  for (const Case& t : cases) {
    OwnedScaledMmCall owned = drawn_call(t.m, t.n, t.k, seed++);
    owned.out_dtype = t.out;
    owned.scale_a = {0x3EAAAAABu};  // about 1/3 and 3: their product rounds in f32
    owned.scale_b = {0x40400001u};
    if (t.rowwise) {
      owned.rowwise = true;
      owned.scale_a.assign(static_cast<size_t>(t.m), 0x3F000000u);  // 0.5
      owned.scale_b.assign(static_cast<size_t>(t.n), 0x40000000u);  // 2
    }
    if (t.bias) {
      // Every kind of finite bias value the widening meets: normals and subnormals, both signs
      // (f16 codes from 0x0001 up; bf16 codes of moderate size).
      owned.bias_dtype = *t.bias;
      owned.bias.resize(static_cast<size_t>(t.n) * 2);
      uint32_t x = seed * 977u;
      for (size_t j = 0; j < static_cast<size_t>(t.n); ++j) {
        x = x * 1664525u + 1013904223u;
        const uint16_t bits = *t.bias == Format::f16 ? static_cast<uint16_t>((x >> 16) & 0xBFFF)
                                                     : static_cast<uint16_t>(0x3000 + (x >> 21));
        owned.bias[2 * j] = static_cast<uint8_t>(bits), owned.bias[2 * j + 1] = bits >> 8;
      }
    }
    owned.a_dtype = t.a_dtype;                        // the drawn codes are finite in either format
    if (t.special) owned.a[5 * t.k + 3] = t.special;  // row 5's elements: NaN or an infinity
    const ScaledMmCall call = owned.view();
    auto plan = profile->resolve(call);
    REQUIRE(plan);
    INFO(t.m << "x" << t.n << "x" << t.k << ", " << plan->split_k << " slice(s)");
    auto cpu = emulate(*plan, call, Backend::cpu);
    REQUIRE(cpu);
    for (Backend backend : {Backend::cuda, Backend::cuda_h4, Backend::cuda_v4, Backend::cuda_v9}) {
      INFO(to_string(backend));
      auto host = emulate_cuda(*plan, call, backend);
      if (!host && host.error().code() == Errc::unsupported) continue;  // the module lacks it
      REQUIRE(host);
      CHECK(*host == *cpu);
      auto copy = ResidentCopy::upload(call);
      REQUIRE(copy);
      auto ran = emulate_cuda_resident(*plan, (*copy)->call(), backend);
      REQUIRE(ran);
      // Rows with NaN/Inf codes are finished on the device; the host takes FP8 infinities only.
      CHECK((ran->host_elements > 0) == t.host_finishes);
      auto out = (*copy)->download_out();
      REQUIRE(out);
      CHECK(*out == *host);
    }
    auto copy = ResidentCopy::upload(call);
    REQUIRE(copy);
    REQUIRE(emulate_cuda_resident(*plan, (*copy)->call()));
    CHECK(*(*copy)->download_out() == *cpu);
  }
}

TEST_CASE("a resident operand off 16 bytes: h4 refuses it, cuda takes the next module, same bits") {
  auto device = cuda_backend_device();
  if (!device) {
    WARN("no GPU: " << device.error().message());
    return;
  }
  auto profile = load_profile("hopper");
  REQUIRE(profile);
  const int64_t m = 64, n = 128, k = 512;
  OwnedScaledMmCall owned = drawn_call(m, n, k, 99);
  auto plan = profile->resolve(owned.view());
  REQUIRE(plan);
  REQUIRE(plan->split_k == 1);
  if (auto kernel = cuda_kernel_for(*plan, owned.view(), Backend::cuda_h4); !kernel) {
    WARN("h4 does not run here (not Hopper)");
    return;
  }
  auto cpu = emulate(*plan, owned.view(), Backend::cpu);
  REQUIRE(cpu);
  // One more row of a, and a's bytes 8 further on: the device call reads from a + 8.
  OwnedScaledMmCall padded = owned;
  padded.m = m + 1;
  padded.a.assign(static_cast<size_t>((m + 1) * k), 0);
  std::copy(owned.a.begin(), owned.a.end(), padded.a.begin() + 8);
  auto copy = ResidentCopy::upload(padded.view());
  REQUIRE(copy);
  DeviceScaledMmCall shifted = (*copy)->call();
  shifted.m = m;
  shifted.a += 8;
  auto refused = emulate_cuda_resident(*plan, shifted, Backend::cuda_h4);
  REQUIRE(!refused);
  CHECK_THAT(refused.error().message(), Catch::Contains("16-byte aligned"));
  auto ran = emulate_cuda_resident(*plan, shifted, Backend::cuda);
  INFO((ran ? std::string() : ran.error().message()));
  REQUIRE(ran);
  CHECK(ran->module != "h4");
  auto out = (*copy)->download_out();
  REQUIRE(out);
  REQUIRE(out->size() >= cpu->size());
  CHECK(std::vector<uint8_t>(out->begin(),
                             out->begin() + static_cast<std::ptrdiff_t>(cpu->size())) == *cpu);
  // The aligned call, for contrast, runs h4.
  auto aligned = ResidentCopy::upload(owned.view());
  REQUIRE(aligned);
  auto h4 = emulate_cuda_resident(*plan, (*aligned)->call(), Backend::cuda_h4);
  REQUIRE(h4);
  CHECK(h4->module == "h4");
  CHECK(*(*aligned)->download_out() == *cpu);
}
