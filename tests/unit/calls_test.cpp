// The call generator (mmaemu/tools/calls.hpp): each recipe draws, for a committed seed, the calls
// that a committed hardware log was made from, so a change to a draw cannot pass unnoticed:
// record's grid against the operands and scales of a truth set recorded on the H200, the live
// check's calls against the ids of a selftest --live log, conform's adversarial calls against the
// calls and elements per preset of the H200's conform log. And the distributions are as named.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "mmaemu/exact.hpp"
#include "mmaemu/replay.hpp"
#include "mmaemu/tools/calls.hpp"
#include "mmaemu/tools/conformance.hpp"
#include "mmaemu/truth.hpp"

using namespace mmaemu;

namespace {

const std::filesystem::path kLogs = std::filesystem::path(MMAEMU_SOURCE_DIR) / "validation_logs";

nlohmann::json read_json(const std::filesystem::path& path) {
  std::ifstream in(path);
  REQUIRE(in.good());
  return nlohmann::json::parse(in);
}

std::vector<uint8_t> bytes(std::span<const uint8_t> s) {
  return {s.begin(), s.end()};
}

}  // namespace

TEST_CASE("input distributions are deterministic and as named", "[record]") {
  for (Format f : {Format::f8_e4m3, Format::f8_e5m2}) {
    for (const char* dist : {"normal", "wide", "cancel", "small", "special"}) {
      auto x = draw_fp8(f, dist, 4096, 5);
      auto y = draw_fp8(f, dist, 4096, 5);
      auto z = draw_fp8(f, dist, 4096, 6);
      REQUIRE(x.ok());
      CHECK(*x == *y);
      CHECK(*x != *z);
    }
    auto wide = draw_fp8(f, "wide", 4096, 1);
    for (uint8_t c : *wide) CHECK(decode(f, c).is_finite());
    auto cancel = draw_fp8(f, "cancel", 4096, 1);
    for (size_t i = 1; i < cancel->size(); i += 2) CHECK(((*cancel)[i] ^ (*cancel)[i - 1]) == 0x80);
    auto small = draw_fp8(f, "small", 4096, 1);
    for (uint8_t c : *small) CHECK(decode(f, c).to_double() < 0.07);
    auto special = draw_fp8(f, "special", 4096, 1);
    int nonfinite = 0;
    for (uint8_t c : *special) nonfinite += !decode(f, c).is_finite();
    CHECK(nonfinite > 0);
  }
  CHECK_FALSE(draw_fp8(Format::f8_e4m3, "gaussian", 4, 1).ok());
  CHECK_FALSE(draw_fp8(Format::bf16, "normal", 4, 1).ok());
}

TEST_CASE("selftest --live draws the same calls of every configuration for a seed", "[live]") {
  const std::vector<int64_t> workspaces = {0, 1 << 20, 4 << 20, 32 << 20};
  auto one = random_live_calls(16, 41, workspaces, 1);
  auto two = random_live_calls(16, 41, workspaces, 2);
  auto other = random_live_calls(16, 42, workspaces, 1);
  REQUIRE(one.ok());
  REQUIRE(two.ok());
  REQUIRE(other.ok());
  std::set<std::string> outs, pairs;
  int splitting = 0, rowwise = 0, bias = 0, fast = 0;
  for (size_t i = 0; i < one->size(); ++i) {
    const RecordCall& c = (*one)[i];
    CHECK(c.id == (*two)[i].id);
    CHECK(c.a == (*two)[i].a);  // operands drawn on two threads are the same bytes
    CHECK(c.scale_a == (*two)[i].scale_a);
    CHECK(c.n % 16 == 0);
    CHECK(c.k % 16 == 0);
    CHECK(c.m * c.n * c.k <= (int64_t{1} << 30));
    CHECK(c.a.size() == static_cast<size_t>(c.m * c.k));
    splitting += i % 2 == 0 && c.k >= 4096;
    rowwise += c.rowwise;
    bias += c.bias_dtype.has_value();
    fast += c.use_fast_accum;
    outs.insert(std::string(describe(c.out_dtype).name));
    pairs.insert(std::string(describe(c.a_dtype).name) + "x" +
                 std::string(describe(c.b_dtype).name));
  }
  CHECK(splitting == 8);  // every other call from where cuBLASLt splits K
  CHECK(outs.size() == 4);
  CHECK(pairs.size() == 3);
  CHECK(rowwise > 0);
  CHECK(bias > 0);
  CHECK(fast > 0);
  CHECK(fast < 16);
  CHECK((*one)[0].id != (*other)[0].id);
  CHECK_FALSE(random_live_calls(4, 1, {}, 1).ok());
}

TEST_CASE("record's grid draws the operands and scales of a set recorded on the H200", "[calls]") {
  // split-k-learn.sh part `record`: one shape per grid row from --seed 132, normal, e4m3 x e4m3,
  // bf16, tensorwise, promoted; row i has seed 133 + i and index i.
  const auto dir = kLogs / "2026-12-03/split-k/rec-split-sm132";
  auto set = load_truth_set(dir);
  REQUIRE(set.ok());
  REQUIRE(set->recordings.size() == 16);
  std::map<std::string, uint64_t> seeds;  // the manifest's seed of each recording
  const auto manifest = read_json(dir / "manifest.json");
  for (const auto& r : manifest["recordings"])
    seeds[r["id"].get<std::string>()] = r["seed"].get<uint64_t>();
  for (const auto& r : set->recordings) {
    INFO(r.id);
    const uint64_t seed = seeds.at(r.id);
    const size_t index = static_cast<size_t>(seed - 133);
    const RecordCall c = grid_call({.m = r.m,
                                    .n = r.n,
                                    .k = r.k,
                                    .pair = "e4m3xe4m3",
                                    .a_dtype = Format::f8_e4m3,
                                    .b_dtype = Format::f8_e4m3,
                                    .dist = "normal",
                                    .out_name = "bf16",
                                    .out_dtype = Format::bf16,
                                    .scale_mode = "tensorwise",
                                    .seed = seed,
                                    .index = index});
    CHECK(c.id == r.id);
    auto recorded = load_scaled_mm_call(*set, r);
    REQUIRE(recorded.ok());
    CHECK(c.scale_a == recorded->call.scale_a.f32_bits);
    CHECK(c.scale_b == recorded->call.scale_b.f32_bits);
    CHECK(*draw_fp8(Format::f8_e4m3, "normal", static_cast<size_t>(r.m * r.k), seed * 2) ==
          bytes(recorded->call.a));
    CHECK(*draw_fp8(Format::f8_e4m3, "normal", static_cast<size_t>(r.n * r.k), seed * 2 + 1) ==
          bytes(recorded->call.b));
  }
}

TEST_CASE("selftest --live draws the calls of a committed live log", "[calls]") {
  const auto log = read_json(kLogs / "2026-12-03/split-k/selftest-live-11.json");
  REQUIRE(log["seed"] == 11);
  constexpr int kCalls = 40;  // the first calls of the log's 100 (the draw is sequential)
  auto calls = random_live_calls(kCalls, 11, log["workspaces"].get<std::vector<int64_t>>(), 0);
  REQUIRE(calls.ok());
  for (int i = 0; i < kCalls; ++i)
    CHECK((*calls)[static_cast<size_t>(i)].id == log["results"][i]["id"].get<std::string>());
}

TEST_CASE("conform draws the calls of the H200's conform log", "[calls]") {
  // conform --backend cuda --calls 100 (seed 2026) on the H200: v1 covers every preset, so its
  // calls and elements per preset are those of every call drawn.
  const auto log = read_json(kLogs / "2026-12-04/split-k/final/conform-cuda.json");
  REQUIRE(log["calls_per_distribution"] == 100);
  ConformanceCalls calls(ConformanceOptions{}.seed, 100);
  std::map<std::string, std::pair<int64_t, int64_t>> per_preset;  // calls, elements
  std::set<int> splits;
  int drawn = 0;
  while (auto c = calls.next()) {
    auto& [n, elements] = per_preset[c->preset->name];
    ++n;
    elements += c->call.m * c->call.n;
    splits.insert(c->split_k);
    ++drawn;
  }
  CHECK(drawn == 500);
  CHECK(splits == std::set<int>{1, 2, 3, 4, 5});
  REQUIRE(per_preset.size() == 3);
  for (const auto& [preset, counts] : per_preset) {
    INFO(preset);
    CHECK(counts.first == log["matrix"]["v1"][preset]["calls"].get<int64_t>());
    CHECK(counts.second == log["matrix"]["v1"][preset]["elements"].get<int64_t>());
  }
}
