// Every kernel module compiles with NVRTC from the sources mmaemu carries: the path a GPU takes
// whose code no fatbin holds, and MMAEMU_FORCE_NVRTC's. No GPU is needed, only NVRTC; where this
// build has no NVRTC path, or NVRTC does not load, the test says so and skips (exit 77).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <string>

#include "mmaemu/tools/device.hpp"
#include "mmaemu/tools/emulation_modules.hpp"

namespace {

bool nvrtc_missing = false;

}  // namespace

using namespace mmaemu;

TEST_CASE("every module compiles with NVRTC for its architectures") {
  const DeviceReport device = probe_devices();
  if (!device.nvrtc_loaded) {
    WARN("no NVRTC: " << device.nvrtc_library << " could not be loaded");
    nvrtc_missing = true;
    return;
  }
  for (const EmulationModule& m : emulation_modules()) {
    // wgmma modules: sm_90a alone; the others: the oldest GPU the fatbins serve and Hopper.
    const std::vector<std::string> arches =
        m.wgmma ? std::vector<std::string>{"sm_90a"} : std::vector<std::string>{"sm_75", "sm_90"};
    for (const std::string& arch : arches) {
      auto cubin = compile_module_with_nvrtc(m.name, arch);
      if (!cubin && cubin.error().code() == Errc::unsupported) {  // a build without CUDA headers
        WARN(cubin.error().message());
        nvrtc_missing = true;
        return;
      }
      INFO(m.name << " for " << arch << ": " << (cubin ? "" : cubin.error().message()));
      REQUIRE(cubin);
      CHECK(*cubin > 1000);
    }
  }
}

TEST_CASE("an unknown module is named in the error") {
  auto cubin = compile_module_with_nvrtc("v7", "sm_90");
  REQUIRE(!cubin);
  CHECK_THAT(cubin.error().message(), Catch::Contains("v7"));
}

int main(int argc, char** argv) {
  const int failed = Catch::Session().run(argc, argv);
  return failed ? failed : (nvrtc_missing ? 77 : 0);
}
