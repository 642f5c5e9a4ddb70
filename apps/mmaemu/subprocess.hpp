// Running another program from the CLI (nvcc, cuobjdump, tar): the library itself runs none.
#pragma once

#include <string>
#include <utility>

namespace mmaemu::cli {

// `s` as one single-quoted word of a POSIX shell command.
std::string shell_quoted(const std::string& s);

// Runs a shell command; returns its exit status (-1 when it did not exit) and its output
// (stdout and stderr together).
std::pair<int, std::string> run_command(const std::string& command);

}  // namespace mmaemu::cli
