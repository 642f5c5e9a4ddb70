// The library's truth-set replay (mmaemu replay's call): verdicts, the JSON report, and bad input.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "mmaemu/truth_set_replay.hpp"

using namespace mmaemu;
namespace fs = std::filesystem;

namespace {

const fs::path kSubset = fs::path(MMAEMU_SOURCE_DIR) / "tests" / "data" / "h200-subset";

}  // namespace

TEST_CASE("a committed truth set replays bit-exact through the library", "[replay]") {
  auto set = load_truth_set(kSubset);
  REQUIRE(set.ok());
  TruthSetReplayOptions options;
  options.threads = 2;
  size_t seen = 0;
  auto report = replay_truth_set(*set, options, [&](const RecordingOutcome&) { ++seen; });
  REQUIRE(report.ok());
  CHECK(report->profile == "hopper");
  CHECK(seen == set->recordings.size());
  CHECK(report->outcomes.size() == set->recordings.size());
  CHECK(report->all_bit_exact());

  // The profile's own split-K counts: still bit-exact, and the log says so per recording.
  options.split_k_from = SplitKFrom::profile;
  auto by_profile = replay_truth_set(*set, options);
  REQUIRE(by_profile.ok());
  CHECK(by_profile->all_bit_exact());
  const auto j = nlohmann::json::parse(truth_set_report_json(*set, options, *by_profile));
  CHECK(j["split_k_from"] == "profile");
  CHECK(j["recordings"].size() == set->recordings.size());
  CHECK(j["verdict"].get<std::string>().starts_with(std::to_string(set->recordings.size()) + "/"));

  // One recording only; an id the set lacks is refused.
  options.only = {set->recordings.front().id};
  auto one = replay_truth_set(*set, options);
  REQUIRE(one.ok());
  CHECK(one->outcomes.size() == 1);
  options.only = {"no-such-recording"};
  auto none = replay_truth_set(*set, options);
  REQUIRE_FALSE(none.ok());
  CHECK(none.error().code() == Errc::not_found);
}

TEST_CASE("an altered recording stops the replay as bad input", "[replay]") {
  const fs::path copy = fs::temp_directory_path() / "mmaemu-truth-set-replay-test";
  fs::remove_all(copy);
  fs::copy(kSubset, copy, fs::copy_options::recursive);
  auto set = load_truth_set(copy);
  REQUIRE(set.ok());
  // Flip one byte near the end of the first recording's file (in its tensors, after the header).
  const fs::path file = copy / set->recordings.front().file;
  {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(-1, std::ios::end);
    char c = 0;
    f.get(c);
    f.seekp(-1, std::ios::end);
    f.put(static_cast<char>(c ^ 1));
  }
  auto report = replay_truth_set(*set, {});
  REQUIRE_FALSE(report.ok());
  CHECK(report.error().code() == Errc::hash_mismatch);
  fs::remove_all(copy);

  // A failure's description places the first mismatch.
  RecordingOutcome x;
  x.id = "r";
  x.op = "scaled_mm";
  x.format = Format::bf16;
  x.columns = 4;
  x.comparison.total = 8;
  x.comparison.mismatches = 1;
  x.comparison.first = Mismatch{6, 0x3F80, 0x3F81};
  x.comparison.max_ulp_distance = 1;
  CHECK(describe_failure(x) ==
        "FAIL r: 1/8 elements differ; first at (1, 2): recorded 0x3F80, emulated 0x3F81; largest "
        "distance 1 ulp");
}
