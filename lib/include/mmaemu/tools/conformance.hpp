// A backend against the oracle, bit for bit, on random and adversarial calls (mmaemu conform's
// library call): every distribution, odd shapes, K not a multiple of the step and multiples of 16,
// split-K 1 (half the calls) to 5, both accumulation modes, every output dtype, and every FP8 step
// preset in turn. The report is a matrix: module x preset, the counts or why the module does not
// cover the preset.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "mmaemu/emulate.hpp"
#include "mmaemu/error.hpp"

namespace mmaemu {

struct ConformanceOptions {
  Backend backend = Backend::cpu;  // cpu (the fast path), cuda (every CUDA module) or one module
  int calls = 200;                 // random calls per distribution
  uint64_t seed = 2026;
  int threads = 1;
};

struct ConformanceCell {
  int64_t calls = 0, unequal = 0, elements = 0;
  std::string not_covered;  // why the module does not cover the preset, when it took no call
};

struct ConformanceReport {
  std::string device;                                 // "this CPU", or the GPU and its modules
  std::map<std::string, std::string> module_origins;  // CUDA: where each module's code came from
  std::map<std::string, std::map<std::string, ConformanceCell>> matrix;  // module -> preset
  std::map<std::string, std::pair<int64_t, int64_t>> distributions;      // name -> checks, unequal
  std::vector<std::string> failures;  // one line per unequal call
  int64_t checks = 0, unequal = 0;
  bool passed() const { return unequal == 0 && checks > 0; }
};

// Runs the checks. `on_step` is told each call's distribution; `on_failure` each unequal call as
// it is found.
Result<ConformanceReport> check_conformance(
    const ConformanceOptions& options, const std::function<void(const std::string&)>& on_step = {},
    const std::function<void(const std::string&)>& on_failure = {});

// The report as `mmaemu conform --out` writes it (mmaemu-conform/2, JSON text).
std::string conformance_report_json(const ConformanceOptions& options,
                                    const ConformanceReport& report);

}  // namespace mmaemu
