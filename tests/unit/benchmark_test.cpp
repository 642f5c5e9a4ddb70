// The library's benchmark (mmaemu bench's call) on the CPU backends: rows, comparisons, refusals.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "mmaemu/tools/benchmark.hpp"

using namespace mmaemu;

TEST_CASE("bench times the CPU backends side by side and compares their bits", "[bench]") {
  auto profile = load_profile("hopper");
  REQUIRE(profile.ok());
  BenchmarkOptions options;
  options.shapes = {{64, 64, 256}, {17, 48, 300}};
  options.backends = {"cpu", "oracle"};
  options.profile = &*profile;
  options.repeats = 1;
  options.threads = 2;
  auto report = run_benchmark(options);
  REQUIRE(report.ok());
  REQUIRE(report->rows.size() == 4);
  CHECK(report->outputs_compared == 2);  // the oracle's output against the fast path's, per shape
  CHECK(report->all_equal);
  for (const auto& row : report->rows) {
    CHECK(row.covered);
    CHECK(row.seconds.size() == 1);
    CHECK(row.splits >= 1);
  }
  CHECK(report->rows[1].bits_equal_first == true);
  const auto log = nlohmann::json::parse(benchmark_report_json(options, *report));
  CHECK(log["format"] == "mmaemu-bench/1");
  CHECK(log["pair"] == "e4m3xe4m3");
  CHECK(log["all_bits_equal"] == true);

  // One backend alone compares nothing: not "all equal" in the log.
  options.backends = {"cpu"};
  auto alone = run_benchmark(options);
  REQUIRE(alone.ok());
  CHECK(nlohmann::json::parse(benchmark_report_json(options, *alone))["all_bits_equal"] == false);

  options.backends = {"cpu", "abacus"};
  auto unknown = run_benchmark(options);
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().message().find("abacus") != std::string::npos);
  options.backends = {"cpu"};
  options.shapes.clear();
  CHECK_FALSE(run_benchmark(options).ok());
}
