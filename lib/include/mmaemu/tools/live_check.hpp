// Live parity (mmaemu selftest --live's library call): random torch._scaled_mm calls of every
// configuration, recorded through cuBLASLt on GPU 0, replayed through the emulator with a profile
// and compared bit for bit; and the profile's own split-K count against the one cuBLASLt chose.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "mmaemu/emulate.hpp"
#include "mmaemu/error.hpp"
#include "mmaemu/profile.hpp"
#include "mmaemu/replay.hpp"
#include "mmaemu/tools/calls.hpp"
#include "mmaemu/tools/record.hpp"

namespace mmaemu {

struct LiveCheckOptions {
  int calls = 48;
  uint64_t seed = 1;
  int threads = 1;
  std::vector<int64_t> workspaces = {int64_t{1} << 20};  // each call draws one of these
  int sm_count = 0;  // SM_COUNT_TARGET for every call (0: the GPU's own)
  SplitKFrom split_k_from = SplitKFrom::recording;
  Backend backend = Backend::cpu;  // the emulator's backend for the replays
  std::string cublaslt = "libcublasLt.so.13";
  std::filesystem::path work_dir;  // the truth set is recorded here; the caller removes it
};

struct LiveCallResult {
  std::string id;
  int64_t m = 0, n = 0, k = 0;
  bool bit_exact = false;
  int64_t mismatches = 0, elements = 0;
  int split_k_used = 1;                 // what the replay used
  std::optional<int> cublaslt_split_k;  // what cuBLASLt chose, where the recording logs it
  int profile_split_k = 1;              // the profile's own choice
  std::string profile_split_k_source;
  bool profile_inside_envelope = false;
  std::string envelope_reason;  // why not, when outside
  bool profile_agrees = false;  // the profile's count equals cuBLASLt's
  double replay_seconds = 0;
};

struct LiveCheckReport {
  std::string environment_json;  // the recorded set's environment (GPU, cuBLASLt, ...)
  RecordSummary recording;
  std::vector<LiveCallResult> calls;
  int bit_exact = 0, split_k_logged = 0, split_k_agreed = 0, split = 0, inside = 0;
  double drawing_seconds = 0, recording_seconds = 0, replaying_seconds = 0;
  bool passed() const {
    return !calls.empty() && bit_exact == static_cast<int>(calls.size()) &&
           split_k_agreed == split_k_logged && recording.nondeterministic == 0;
  }
};

// What a caller may show while the check runs.
struct LiveCheckEvents {
  std::function<void(size_t calls)> recording_started;
  std::function<void(const std::string& id)> recorded;
  std::function<void(size_t recordings)> replay_started;
  std::function<void(const LiveCallResult&)> replayed;
};

// The calls come from random_live_calls (mmaemu/tools/calls.hpp).
// Records the calls into options.work_dir through cuBLASLt, then replays each with `profile`.
Result<LiveCheckReport> check_live(const LiveCheckOptions& options, const Profile& profile,
                                   const LiveCheckEvents& events = {});

// The replay half alone, on a set recorded earlier (by check_live or `mmaemu record`): every
// recording replayed with `profile` and options' backend, split_k_from and threads. The report's
// recording summary and its drawing and recording times stay zero.
Result<LiveCheckReport> replay_live_set(const std::filesystem::path& dir,
                                        const LiveCheckOptions& options, const Profile& profile,
                                        const LiveCheckEvents& events = {});

// One line: the bit-exact and split-K counts.
std::string live_check_verdict(const LiveCheckOptions& options, const LiveCheckReport& report);

// The report as `mmaemu selftest --live --log` writes it (mmaemu-selftest-live/2, JSON text).
std::string live_check_report_json(const LiveCheckOptions& options, const Profile& profile,
                                   const LiveCheckReport& report);

}  // namespace mmaemu
