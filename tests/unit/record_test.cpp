// What `mmaemu record` can be checked for without a GPU: the input distributions, and a clear
// refusal where no driver is loaded.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include "mmaemu/device.hpp"
#include "mmaemu/exact.hpp"
#include "mmaemu/record.hpp"

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
