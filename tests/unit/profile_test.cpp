// Profiles, the resolver and its envelope, and the GPU-name table.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include "mmaemu/gpu_family.hpp"
#include "mmaemu/profile.hpp"

using namespace mmaemu;

TEST_CASE("GPU product names map to their family's architecture", "[profile][gpu]") {
  const std::pair<const char*, const char*> names[] = {
      {"NVIDIA H200", "hopper"},          {"NVIDIA H100 80GB HBM3", "hopper"},
      {"H100 PCIe", "hopper"},            {"NVIDIA GH200 480GB", "hopper"},
      {"NVIDIA H800", "hopper"},          {"NVIDIA A100-SXM4-80GB", "ampere"},
      {"NVIDIA A30", "ampere"},           {"NVIDIA A10", "ampere"},
      {"NVIDIA A10G", "ampere"},          {"NVIDIA A2", "ampere"},
      {"NVIDIA A40", "ampere"},           {"NVIDIA GeForce RTX 3090", "ampere"},
      {"NVIDIA GeForce RTX 4090", "ada"}, {"NVIDIA L4", "ada"},
      {"NVIDIA L40", "ada"},              {"NVIDIA L40S", "ada"},
      {"NVIDIA RTX 1000 Ada Generation Laptop GPU", "ada"},
      {"NVIDIA RTX 6000 Ada Generation", "ada"},
      {"Ada", "ada"},                     {"NVIDIA B200", "blackwell"},
      {"NVIDIA B100", "blackwell"},       {"NVIDIA GB200", "blackwell"},
      {"Tesla V100-SXM2-16GB", "volta"},  {"Tesla T4", "turing"},
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

  plan = hopper->resolve(shape(4096, 4096, 4096));
  REQUIRE(plan.ok());
  CHECK_FALSE(plan->envelope.inside);
  CHECK_THAT(plan->envelope.reason, Catch::Contains("4096x4096x4096"));
  CHECK(plan->split_k == 1);

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
                               "rules":[{"preset":"nope","algorithm":"cublaslt_nvjet_fast"}]})", "x.json");
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.error().message(), Catch::Contains("rules[0].preset"));
  auto wrong_type = parse_profile(R"({"schema":"mmaemu-profile/1","name":"x","maturity":"validated",
      "rules":[{"preset":"hopper_fp8_wgmma_k32","algorithm":"cublaslt_nvjet_fast","use_fast_accum":"yes"}]})",
                                  "y.json");
  REQUIRE_FALSE(wrong_type.ok());
  CHECK_THAT(wrong_type.error().message(), Catch::Contains("y.json"));
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
}
