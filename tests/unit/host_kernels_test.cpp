// The CUDA backend end to end on the CPU: a portable kernel module (MMAEMU_HOST_MODULE_KERNEL's),
// compiled for the host (tests/host_simt), runs behind the host driver through the library's
// launcher, pre-passes and special pass, and `conform`'s checks compare its bits with the oracle's
// on every distribution, preset, split count and output format. A kernel change that breaks the
// bits fails here in CI, before any GPU runs it.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include <cstdio>

#include "host_driver.hpp"
#include "mmaemu/tools/conformance.hpp"
#include "mmaemu/tools/cuda_backend.hpp"
#include "mmaemu/tools/emulation_modules.hpp"

using namespace mmaemu;

namespace {

// The module under test, as the library names it (MMAEMU_HOST_MODULE_NAME: "v1", "v4", "v9").
Backend module_backend() {
  return emulation_module_named(MMAEMU_HOST_MODULE_NAME)->backend;
}

}  // namespace

TEST_CASE("the module on the host driver equals the oracle in conform's checks") {
  device::replace_gpu_opener(host_simt::open_host_gpu);
  ConformanceOptions options;
  options.backend = module_backend();
  options.calls = 4;
  options.seed = 15;
  auto report = check_conformance(options);
  REQUIRE(report);
  for (const auto& line : report->failures) UNSCOPED_INFO(line);
  INFO(MMAEMU_HOST_MODULE_NAME << ": " << report->checks << " checks, " << report->unequal
                               << " unequal");
  std::printf(
      "%s (__CUDA_ARCH__ %d) on the host driver: %lld checks, %lld unequal, %lld launches\n",
      MMAEMU_HOST_MODULE_NAME, MMAEMU_HOST_CUDA_ARCH, static_cast<long long>(report->checks),
      static_cast<long long>(report->unequal), host_simt::host_launches());
  CHECK(report->checks > 0);
  CHECK(report->unequal == 0);
  CHECK(host_simt::host_launches() > 0);  // the module ran on the host driver, not the CPU path
}
