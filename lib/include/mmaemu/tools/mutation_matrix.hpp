// The mutation matrix (mmaemu mutate): every parameter of the model moved one step at a time
// (each preset's, each algorithm's, the split count), each mutant replayed against truth sets; a
// mutant some recording catches is killed, one none catches survives with the reason. Parameters
// that are code, not data, are listed with where they are judged instead.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "mmaemu/error.hpp"
#include "mmaemu/truth.hpp"

namespace mmaemu {

struct MutantOutcome {
  std::string kind;       // "preset", "algorithm", "plan"
  std::string target;     // the preset's or algorithm's name; "every scaled_mm plan"
  std::string parameter;  // as the model names it (Preset, Algorithm or Plan field)
  std::string change;     // what the mutant does
  bool killed = false;
  std::string killed_by;     // "<set>/<recording id>" of the first recording that differed
  int recordings_using = 0;  // recordings whose replay used the mutated target
  std::string reason;        // why it survived
};

struct FixedRule {  // a rule that is code, not a parameter the matrix can move
  std::string rule, where, judged_by;
};

struct MutationReport {
  std::vector<std::string> truth_sets;
  int recordings = 0;
  std::vector<MutantOutcome> mutants;
  std::vector<FixedRule> fixed_rules;
  int not_applicable = 0;  // preset moves impossible for a preset (no f16 result to move, ...)
  double seconds = 0;
  int killed() const;
};

// Replays every set unmutated first (each must be bit-exact: a matrix needs a passing baseline),
// then each mutant; `progress` sees each mutant as it is judged.
Result<MutationReport> run_mutation_matrix(
    const std::vector<TruthSet>& sets, int threads,
    const std::function<void(const MutantOutcome&, size_t done, size_t total)>& progress = {});

std::string mutation_report_json(const MutationReport& report);

}  // namespace mmaemu
