// A whole truth set replayed: every recording through the emulator, compared bitwise, with the
// report `mmaemu replay` prints and logs. The library call behind the CLI, so that a C++ user
// gets the same verdicts (and the same JSON log) without the executable.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "mmaemu/emulate.hpp"
#include "mmaemu/error.hpp"
#include "mmaemu/replay.hpp"
#include "mmaemu/truth.hpp"

namespace mmaemu {

struct TruthSetReplayOptions {
  // A profile name or JSON file for scaled_mm recordings; empty: the built-in profile of the
  // architecture of the set's GPU.
  std::string profile;
  Backend backend = Backend::cpu;
  int threads = 1;
  SplitKFrom split_k_from = SplitKFrom::recording;
  std::optional<int>
      sm_count;     // the SM count whose heuristic is emulated (see ScaledMmReplayOptions)
  std::string gpu;  // the GPU whose heuristic is emulated; empty: the recordings' own
  std::vector<std::string> only;  // replay only these recording ids (each must exist)
  // A deliberate change of the model (mmaemu mutate): applied to each scaled_mm recording's
  // resolved plan, and to the preset each mma_block recording is replayed with (returning the
  // preset to use). Empty: the model as it is.
  std::function<void(Plan&)> adjust_plan;
  std::function<const Preset*(const Preset*)> adjust_preset;
};

// What one recording's replay gave.
struct RecordingOutcome {
  std::string id, op, preset, algorithm;
  // scaled_mm: the split count used, where it came from, and what cuBLASLt logged.
  int split_k = 0;
  std::string split_k_source, heuristic_device;
  std::optional<int> recorded_split_k;
  bool inside_envelope = true;
  std::string envelope_reason;
  Comparison comparison;
  std::string error;  // the replay could not be made (the model does not cover the call)
  Format format = Format::f32;
  int64_t columns = 0;  // of the output, to place a mismatch
  bool bit_exact() const { return error.empty() && comparison.bit_exact(); }
};

// "FAIL id: 3/256 elements differ; first at (0, 2): recorded 0x3F80, emulated 0x3F81; ...".
std::string describe_failure(const RecordingOutcome& outcome);

struct TruthSetReport {
  std::string profile;  // the profile's name ("" when the set holds no scaled_mm recording)
  std::vector<RecordingOutcome> outcomes;
  double seconds = 0;
  size_t bit_exact() const;
  // Recordings that log cuBLASLt's split count, and those replayed with that very count.
  size_t split_k_logged() const;
  size_t split_k_agreed() const;
  bool all_bit_exact() const { return bit_exact() == outcomes.size(); }
};

// Replays every recording of `set` (or options.only). A recording whose file is missing, altered
// or malformed stops the replay with that error (bad input, not a miss); a call the model cannot
// emulate is an outcome with its error. `on_outcome` sees each outcome as it is made.
Result<TruthSetReport> replay_truth_set(
    const TruthSet& set, const TruthSetReplayOptions& options,
    const std::function<void(const RecordingOutcome&)>& on_outcome = {});

// The report as `mmaemu replay --out` writes it (JSON text): the set, the options, a verdict,
// and one entry per recording.
std::string truth_set_report_json(const TruthSet& set, const TruthSetReplayOptions& options,
                                  const TruthSetReport& report);

}  // namespace mmaemu
