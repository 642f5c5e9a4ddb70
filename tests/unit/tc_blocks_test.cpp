// Every mma_block recording of tc-blocks-dev through the oracle with its architecture's preset:
// every row must match bit for bit.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "mmaemu/gpu_family.hpp"
#include "mmaemu/replay.hpp"
#include "truth_location.hpp"

namespace {
std::filesystem::path g_dir;
}

TEST_CASE("every tc-blocks-dev recording is bit-exact with its preset", "[truth][tc-blocks]") {
  auto set = mmaemu::load_truth_set(g_dir);
  REQUIRE(set.ok());
  REQUIRE(set->recordings.size() == 26);
  int exact = 0;
  for (const auto& r : set->recordings) {
    auto arch = mmaemu::architecture_of_gpu(r.gpu);
    REQUIRE(arch.has_value());
    const mmaemu::Preset* preset = mmaemu::find_preset_for(*arch, r.in_dtype);
    INFO(r.id << " -> " << (preset ? preset->name : "no preset"));
    REQUIRE(preset != nullptr);
    auto cmp = mmaemu::replay_mma_block(*set, r, *preset, {mmaemu::mma_block_reads_c(r)});
    REQUIRE(cmp.ok());
    std::cout << r.id << ": " << (cmp->total - cmp->mismatches) << "/" << cmp->total
              << " rows bit-exact with " << preset->name << "\n";
    CHECK(cmp->mismatches == 0);
    CHECK(cmp->total == r.count);
    exact += cmp->bit_exact();
  }
  std::cout << "tc-blocks-dev: " << exact << "/" << set->recordings.size()
            << " recordings bit-exact\n";
}

TEST_CASE("the H100 FP8 recordings were made without c (wgmma scale-d = 0)", "[truth][tc-blocks]") {
  auto set = mmaemu::load_truth_set(g_dir);
  REQUIRE(set.ok());
  int checked = 0;
  for (const auto& r : set->recordings) {
    if (mmaemu::mma_block_reads_c(r)) continue;
    const mmaemu::Preset* preset = mmaemu::find_preset_for("hopper", r.in_dtype);
    REQUIRE(preset != nullptr);
    auto with_c = mmaemu::replay_mma_block(*set, r, *preset, {true});
    REQUIRE(with_c.ok());
    INFO(r.id);
    CHECK(with_c->mismatches > with_c->total / 2);  // adding c would break most rows
    ++checked;
  }
  CHECK(checked == 2);
}

int main(int argc, char** argv) {
  g_dir = mmaemu::testing::require_truth_set("tc-blocks-dev", "tc-blocks-subset");
  return Catch::Session().run(argc, argv);
}
