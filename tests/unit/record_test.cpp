// What `mmaemu record` and `selftest --live` can be checked for without a GPU: the input
// distributions, a clear refusal where no driver is loaded, the live check's random calls, and its
// replay half on a set recorded on the H200.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "mmaemu/exact.hpp"
#include "mmaemu/tools/device.hpp"
#include "mmaemu/tools/live_check.hpp"
#include "mmaemu/tools/record.hpp"

using namespace mmaemu;

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

TEST_CASE("recording without a GPU driver fails with the reason", "[record]") {
  if (probe_devices().driver_loaded) return;  // a GPU machine: the device run checks recording
  auto r = record_truth_set({"/tmp/mmaemu-record-test"}, {}, nullptr);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code() == Errc::device_unavailable);
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

TEST_CASE("the live check's replay half on a recorded set, without a GPU", "[live]") {
  // 16 calls recorded on the H200 with mmaemu record, each with cuBLASLt's split count.
  const std::filesystem::path set = std::filesystem::path(MMAEMU_SOURCE_DIR) /
                                    "validation_logs/2026-12-03/split-k/rec-split-sm132";
  auto profile = load_profile("hopper");
  REQUIRE(profile.ok());
  LiveCheckOptions options;
  options.split_k_from = SplitKFrom::profile;
  int seen = 0;
  auto report =
      replay_live_set(set, options, *profile, {.replayed = [&](const LiveCallResult&) { ++seen; }});
  REQUIRE(report.ok());
  CHECK(report->calls.size() == 16);
  CHECK(seen == 16);
  CHECK(report->bit_exact == 16);
  CHECK(report->split_k_logged == 16);
  CHECK(report->split_k_agreed == 16);
  CHECK(report->split == 16);
  CHECK(live_check_verdict(options, *report).rfind("16/16 calls bit-exact on NVIDIA H200", 0) == 0);
  const auto log = nlohmann::json::parse(live_check_report_json(options, *profile, *report));
  CHECK(log["format"] == "mmaemu-selftest-live/2");
  CHECK(log["gpu"] == "NVIDIA H200");
  CHECK(log["split_k_from"] == "profile");
  CHECK(log["results"].size() == 16);
  CHECK(log["results"][0]["verdict"] == "bit-exact");
  CHECK(log["results"][0].contains("cublaslt_split_k"));
  // Without the recorded set the replay says which directory it could not read.
  auto missing = replay_live_set("/nonexistent/mmaemu-live", options, *profile);
  REQUIRE_FALSE(missing.ok());
  CHECK_THAT(missing.error().message(), Catch::Contains("/nonexistent/mmaemu-live"));
  // check_live needs a directory to record into before anything else.
  options.work_dir.clear();
  auto refused = check_live(options, *profile);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code() == Errc::invalid_argument);
}
