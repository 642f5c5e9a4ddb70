// What `mmaemu record` and `selftest --live` can be checked for without a GPU: a clear refusal
// where no driver is loaded, and the live check's replay half on a set recorded on the H200 (the
// calls they draw: calls_test.cpp).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "mmaemu/tools/device.hpp"
#include "mmaemu/tools/live_check.hpp"
#include "mmaemu/tools/record.hpp"

using namespace mmaemu;

TEST_CASE("recording without a GPU driver fails with the reason", "[record]") {
  if (probe_devices().driver_loaded) return;  // a GPU machine: the device run checks recording
  auto r = record_truth_set({"/tmp/mmaemu-record-test"}, {}, nullptr);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code() == Errc::device_unavailable);
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
