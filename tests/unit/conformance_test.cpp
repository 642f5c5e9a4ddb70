// The library's conformance check (mmaemu conform's call) on the fast CPU path.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "mmaemu/tools/conformance.hpp"

using namespace mmaemu;

TEST_CASE("the fast path equals the oracle on every FP8 preset, as a library call", "[conform]") {
  ConformanceOptions options;
  options.backend = Backend::cpu;
  options.calls = 3;
  options.threads = 2;
  size_t steps = 0;
  auto report = check_conformance(options, [&](const std::string&) { ++steps; });
  REQUIRE(report.ok());
  CHECK(steps == 5 * 3);  // three calls in each of the five distributions
  CHECK(report->passed());
  CHECK(report->device == "this CPU");
  CHECK(report->distributions.size() == 5);
  REQUIRE(report->matrix.count("cpu"));
  for (const char* preset : {"hopper_fp8_wgmma_k32", "ada_fp8_mma_k32", "blackwell_fp8_mma_k32"}) {
    REQUIRE(report->matrix["cpu"].count(preset));
    CHECK(report->matrix["cpu"][preset].calls > 0);
    CHECK(report->matrix["cpu"][preset].unequal == 0);
  }
  const auto log = nlohmann::json::parse(conformance_report_json(options, *report));
  CHECK(log["format"] == "mmaemu-conform/2");
  CHECK(log["backend"] == "cpu");
  CHECK(log["matrix"]["cpu"]["hopper_fp8_wgmma_k32"]["verdict"] == "PASS");

  options.backend = Backend::oracle;  // the oracle against itself checks nothing
  auto refused = check_conformance(options);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code() == Errc::invalid_argument);
}
