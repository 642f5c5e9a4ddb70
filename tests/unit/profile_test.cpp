// Profiles, the resolver and its envelope, and the GPU-name table.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include "mmaemu/gpu_family.hpp"
#include "mmaemu/profile.hpp"
#include "mmaemu/scaled_mm.hpp"
#include "mmaemu/truth.hpp"

using namespace mmaemu;

TEST_CASE("GPU product names map to their family's architecture", "[profile][gpu]") {
  const std::pair<const char*, const char*> names[] = {
      {"NVIDIA H200", "hopper"},
      {"NVIDIA H100 80GB HBM3", "hopper"},
      {"H100 PCIe", "hopper"},
      {"NVIDIA GH200 480GB", "hopper"},
      {"NVIDIA H800", "hopper"},
      {"NVIDIA A100-SXM4-80GB", "ampere"},
      {"NVIDIA A30", "ampere"},
      {"NVIDIA A10", "ampere"},
      {"NVIDIA A10G", "ampere"},
      {"NVIDIA A2", "ampere"},
      {"NVIDIA A40", "ampere"},
      {"NVIDIA GeForce RTX 3090", "ampere"},
      {"NVIDIA GeForce RTX 4090", "ada"},
      {"NVIDIA L4", "ada"},
      {"NVIDIA L40", "ada"},
      {"NVIDIA L40S", "ada"},
      {"NVIDIA RTX 1000 Ada Generation Laptop GPU", "ada"},
      {"NVIDIA RTX 6000 Ada Generation", "ada"},
      {"Ada", "ada"},
      {"NVIDIA B200", "blackwell"},
      {"NVIDIA B100", "blackwell"},
      {"NVIDIA GB200", "blackwell"},
      {"Tesla V100-SXM2-16GB", "volta"},
      {"Tesla T4", "turing"},
      {"NVIDIA GeForce RTX 5090", "blackwell_rtx"},
  };
  for (auto [name, arch] : names) {
    INFO(name);
    const auto got = architecture_of_gpu(name);
    REQUIRE(got.has_value());
    CHECK(*got == arch);
  }
  CHECK_FALSE(architecture_of_gpu("Radeon RX 7900").has_value());
}

namespace {

ScaledMmCall shape(int64_t m, int64_t n, int64_t k) {
  ScaledMmCall c;
  c.m = m;
  c.n = n;
  c.k = k;
  return c;
}

}  // namespace

TEST_CASE("the hopper profile resolves plans and says where it was not validated", "[profile]") {
  auto hopper = load_profile("hopper");
  REQUIRE(hopper.ok());
  CHECK(hopper->maturity == "validated");

  ScaledMmCall split = shape(128, 128, 8192);
  auto plan = hopper->resolve(split);
  REQUIRE(plan.ok());
  CHECK(plan->split_k == 3);
  CHECK(plan->preset->name == "hopper_fp8_wgmma_k32");
  CHECK(plan->algorithm.name == "cublaslt_nvjet_promote128");
  CHECK(plan->envelope.inside);

  split.use_fast_accum = true;
  split.scale_a = {{0x3F800000}, true};
  split.scale_a.f32_bits.assign(128, 0x3F800000);
  split.scale_b = {std::vector<uint32_t>(128, 0x3F800000), true};
  plan = hopper->resolve(split);
  REQUIRE(plan.ok());
  CHECK(plan->split_k == 1);  // rowwise calls pick the unsplit kernels at this shape
  CHECK(plan->algorithm.name == "cublaslt_nvjet_fast");

  // K <= 5120 is never split (a rule of the split-K model): inside the envelope at any m, n.
  plan = hopper->resolve(shape(4000, 4000, 4000));
  REQUIRE(plan.ok());
  CHECK(plan->envelope.inside);
  CHECK(plan->split_k == 1);
  CHECK_THAT(plan->split_k_source, Catch::Contains("rule"));
  CHECK_THAT(plan->heuristic_device, Catch::Contains("132 SMs"));
  // Between the swept points the count is predicted: outside the envelope, with the reason.
  plan = hopper->resolve(shape(101, 16, 20480));
  REQUIRE(plan.ok());
  CHECK_FALSE(plan->envelope.inside);
  CHECK_THAT(plan->envelope.reason, Catch::Contains("101x16x20480"));
  CHECK_THAT(plan->envelope.reason, Catch::Contains("predicted"));
  // Swept cells answer at torch's default 1 MiB workspace, at 32 MiB, and at an SM-count target of
  // 114.
  CHECK(hopper->workspace_bytes == 1 << 20);
  auto at_32 = hopper->resolve(shape(16, 16, 65536), {.workspace_bytes = 32 << 20});
  REQUIRE(at_32.ok());
  CHECK(at_32->envelope.inside);
  auto at_114 = hopper->resolve(shape(64, 256, 32768), {.sm_count = 114});
  REQUIRE(at_114.ok());
  CHECK(at_114->envelope.inside);
  CHECK_THAT(at_114->heuristic_device, Catch::Contains("H100 PCIe"));

  ScaledMmCall evo2 = shape(256, 512, 4096);
  evo2.n_full = 12288;  // only 512 columns stored; the library ran the full shape
  plan = hopper->resolve(evo2);
  REQUIRE(plan.ok());
  CHECK(plan->envelope.inside);
}

TEST_CASE("the ada profile is experimental and validates no GEMM", "[profile]") {
  auto ada = load_profile("ada");
  REQUIRE(ada.ok());
  CHECK(ada->maturity == "experimental");
  auto plan = ada->resolve(shape(64, 64, 256));
  REQUIRE(plan.ok());
  CHECK(plan->preset->name == "ada_fp8_mma_k32");
  CHECK_FALSE(plan->envelope.inside);
}

TEST_CASE("bad profiles are refused with the field named", "[profile]") {
  CHECK_FALSE(load_profile("volta").ok());
  CHECK(load_profile("volta").error().code() == Errc::not_found);
  auto bad = parse_profile(R"({"schema":"mmaemu-profile/1","name":"x","maturity":"validated",
                               "rules":[{"preset":"nope","algorithm":"cublaslt_nvjet_fast"}]})",
                           "x.json");
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.error().message(), Catch::Contains("rules[0].preset"));
  auto wrong_type = parse_profile(R"({"schema":"mmaemu-profile/1","name":"x","maturity":"validated",
      "rules":[{"preset":"hopper_fp8_wgmma_k32","algorithm":"cublaslt_nvjet_fast","use_fast_accum":"yes"}]})",
                                  "y.json");
  REQUIRE_FALSE(wrong_type.ok());
  CHECK_THAT(wrong_type.error().message(),
             Catch::Contains("y.json: field 'rules[0].use_fast_accum' must be a boolean"));
  // A field of the wrong type is named, whatever its place (issue 13: the JSON library's words).
  const std::string head = R"({"schema":"mmaemu-profile/1","maturity":"validated",
      "rules":[{"preset":"hopper_fp8_wgmma_k32","algorithm":"cublaslt_nvjet_fast"}],)";
  const std::pair<const char*, const char*> cases[] = {
      {R"("name":7})", "field 'name' must be a string"},
      {R"("name":"x","split_k":[1]})", "field 'split_k' must be an object"},
      {R"("name":"x","target":{"devices":[1]}})",
       "field 'target.devices' must be an array of strings"},
      {R"("name":"x","evidence":"a"})", "field 'evidence' must be an array of strings"},
      {R"("name":"x","split_k":{"model":3}})", "field 'split_k.model' must be a string"},
      {R"("name":"x","rules":[3]})", "field 'rules[0]' must be an object"},
      {R"("name":"x","envelope":{"out_dtypes":["f12"]}})",
       "field 'envelope.out_dtypes' names an unknown dtype 'f12'"}};
  for (const auto& [tail, message] : cases) {
    auto refused = parse_profile(head + tail, "w.json");
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code() == Errc::malformed);
    CHECK_THAT(refused.error().message(), Catch::Contains(std::string("w.json: ") + message));
  }
  CHECK_FALSE(parse_profile("{", "z.json").ok());
}

TEST_CASE("split-K slices follow the library's rule", "[profile]") {
  // K = 8192 in 3 slices: 2816, 2816, 2560.
  CHECK(split_k_slice(8192, 3, 128, 0).begin == 0);
  CHECK(split_k_slice(8192, 3, 128, 0).end == 2816);
  CHECK(split_k_slice(8192, 3, 128, 2).begin == 5632);
  CHECK(split_k_slice(8192, 3, 128, 2).end == 8192);
  // More slices than grains: the last ones are empty.
  CHECK(split_k_slice(256, 3, 128, 2).begin == 256);
  CHECK(split_k_slice(256, 3, 128, 2).end == 256);
  // K = 16 mod 128, (ceil(K / 128) - 1) a multiple of the splits, 17 splits or more: the H200
  // splits the whole 128-blocks evenly and never adds the last 16 elements of K
  // (validation_logs/2026-12-04/split-k). 64016 in 25 slices of 20 blocks: [0, 2560) ..
  // [61440, 64000).
  CHECK(split_k_slice(64016, 25, 128, 0).end == 2560);
  CHECK(split_k_slice(64016, 25, 128, 23).begin == 58880);
  CHECK(split_k_slice(64016, 25, 128, 24).begin == 61440);
  CHECK(split_k_slice(64016, 25, 128, 24).end == 64000);
  CHECK(split_k_slice(56336, 22, 128, 21).end == 56320);
  // 43536 in 17 slices (340 whole blocks in 17): the last slice [40960, 43520).
  CHECK(split_k_slice(43536, 17, 128, 16).begin == 40960);
  CHECK(split_k_slice(43536, 17, 128, 16).end == 43520);
  // Not at 16 slices (40976: 320 grains in 16), nor with a remainder (61584: 481 grains in 24, the
  // last slice empty), nor when K = 48 mod 128 (64048), nor at a multiple of 128 (64512).
  CHECK(split_k_slice(40976, 16, 128, 15).end == 40976);
  CHECK(split_k_slice(61584, 24, 128, 22).end == 61584);
  CHECK(split_k_slice(16400, 6, 128, 5).end == 16400);
  CHECK(split_k_slice(64048, 25, 128, 23).end == 64048);
  CHECK(split_k_slice(64512, 25, 128, 23).end == 64512);
}

TEST_CASE("split-K tables of a profile without a model: precedence", "[profile]") {
  auto base = load_profile("hopper");
  REQUIRE(base.ok());
  Profile p = *base;
  p.split_k_model.reset();  // the tables of a profile without a split-K model
  p.split_k_table = {{128, 128, 8192, 3, false, "fitted"}};
  p.unsplit_shapes = {{16, 128, 8192, 1, false, "seen"}};
  auto plan = p.resolve(shape(128, 128, 8192));
  REQUIRE(plan.ok());
  CHECK(plan->split_k == 3);
  CHECK(plan->envelope.inside);
  CHECK_THAT(plan->split_k_source, Catch::Contains("split_k.table"));
  plan = p.resolve(shape(16, 128, 8192));
  REQUIRE(plan.ok());
  CHECK(plan->split_k == 1);
  CHECK(plan->envelope.inside);
  // Neither listed: one slice, outside the envelope.
  plan = p.resolve(shape(64, 128, 8192));
  REQUIRE(plan.ok());
  CHECK(plan->split_k == 1);
  CHECK_FALSE(plan->envelope.inside);
  // A count known with the call wins.
  plan = p.resolve(shape(128, 128, 8192), {.known_split_k = 9});
  REQUIRE(plan.ok());
  CHECK(plan->split_k == 9);
}

TEST_CASE("a split count given with the call is bounded", "[profile]") {
  auto hopper = load_profile("hopper");
  REQUIRE(hopper.ok());
  const ScaledMmCall c = shape(16, 16, 64);
  for (int bad : {0, -1, 3, 2000000000}) {  // K = 64 holds at most ceil(64 / 32) = 2
    auto plan = hopper->resolve(c, {.known_split_k = bad});
    REQUIRE_FALSE(plan.ok());
    CHECK(plan.error().code() == Errc::invalid_argument);
    CHECK_THAT(plan.error().message(), Catch::Contains("K = 64"));
  }
  auto plan = hopper->resolve(c, {.known_split_k = 2});
  REQUIRE(plan.ok());
  CHECK(plan->split_k == 2);
}

TEST_CASE("a profile with the sweep tables the split-K model replaced is refused, said why",
          "[profile]") {
  const char* text = R"({"schema": "mmaemu-profile/1", "name": "x", "maturity": "experimental",
    "rules": [{"preset": "hopper_fp8_wgmma_k32", "algorithm": "cublaslt_nvjet_fast"}],
    "split_k": {"sweeps": [{"workspace_bytes": 1048576, "rowwise": false, "use_fast_accum": false,
      "a_dtype": "f8_e4m3", "b_dtype": "f8_e4m3", "out_dtype": "bf16",
      "m": [16], "n": [16], "k": [32], "splits": "1", "reduction_schemes": "0"}]}})";
  auto p = parse_profile(text, "x.json");
  REQUIRE_FALSE(p.ok());
  CHECK_THAT(p.error().message(), Catch::Contains("split_k.sweeps"));
  CHECK_THAT(p.error().message(), Catch::Contains("split_k.model"));
}

TEST_CASE("a call whose output cannot be held is refused before anything is allocated",
          "[profile][gemm]") {
  // m = n = 2^32: the output's byte count wraps 64 bits.
  ScaledMmCall huge = shape(int64_t{1} << 32, int64_t{1} << 32, 16);
  huge.out_dtype = Format::f32;
  auto ok = validate(huge);
  REQUIRE_FALSE(ok.ok());
  CHECK(ok.error().code() == Errc::invalid_argument);
  CHECK_THAT(ok.error().message(), Catch::Contains("does not fit a 64-bit byte count"));
  // One MiB of operands (K = 1) naming 4 TiB of output: more than any machine here holds.
  ScaledMmCall wide = shape(1 << 20, 1 << 20, 1);
  wide.out_dtype = Format::f32;
  const std::vector<uint8_t> operand(size_t{1} << 20, 0x38);
  wide.a = operand;
  wide.b = operand;
  ok = validate(wide);
  REQUIRE_FALSE(ok.ok());
  CHECK_THAT(ok.error().message(), Catch::Contains("more than this machine's"));
}

TEST_CASE("a recording's kernel names override the profile's split or no split", "[profile]") {
  auto hopper = load_profile("hopper");
  REQUIRE(hopper.ok());
  // Swept: 3 slices. Kernels without a split-K reduction say one slice, known.
  auto plan = hopper->resolve(shape(128, 128, 8192), {.known_split = false});
  REQUIRE(plan.ok());
  CHECK(plan->split_k == 1);
  CHECK(plan->envelope.inside);
  CHECK_THAT(plan->split_k_source, Catch::Contains("kernels"));
  plan = hopper->resolve(shape(128, 128, 8192), {.known_split = true});
  REQUIRE(plan.ok());
  CHECK(plan->split_k == 3);
  // A workspace too small for two slices (the rule) where the kernels show a split: the assumed
  // workspace was wrong; 2 slices, outside the envelope, said why.
  plan = hopper->resolve(shape(4096, 4096, 8192), {.known_split = true});
  REQUIRE(plan.ok());
  CHECK(plan->split_k == 2);
  CHECK_FALSE(plan->envelope.inside);
  CHECK_THAT(plan->envelope.reason, Catch::Contains("4096x4096x8192"));
  CHECK_THAT(plan->envelope.reason, Catch::Contains("recording's kernels"));
  // A count known outright wins over the kernel names.
  plan = hopper->resolve(shape(128, 128, 8192), {.known_split_k = 3, .known_split = false});
  REQUIRE(plan.ok());
  CHECK(plan->split_k == 3);

  Recording r;
  CHECK_FALSE(kernels_show_split(r).has_value());
  r.kernels = {"nvjet_sm90_qqtst_64x8_128x16_1x2_h_bz_algo2_TNT"};
  CHECK(kernels_show_split(r) == false);
  r.kernels = {"nvjet_sm90_qqtst_64x32_128x16_2x4_h_bz_algo2_splitK_TNT",
               "void cublasLt::splitKreduce_kernel<32, 16, int, float>(...)"};
  CHECK(kernels_show_split(r) == true);
  r.kernels = {"nvjet_sm90_qqtst_64x32_128x16_2x4_h_bz_splitK_TNT"};
  CHECK(kernels_show_split(r) == true);
}
