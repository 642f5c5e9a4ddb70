// A one-line progress bar on stderr, drawn only when stderr is a terminal.
#pragma once

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <string>

namespace mmaemu::cli {

class Progress {
 public:
  explicit Progress(size_t total) : total_(total), tty_(isatty(STDERR_FILENO)) {}
  void step(const std::string& id) { set(done_ + 1, id); }
  void set(size_t done, const std::string& id) {
    done_ = done;
    if (!tty_) return;
    const int width = 30;
    const int filled = static_cast<int>(width * done_ / std::max<size_t>(total_, 1));
    std::cerr << fmt::format("\r[{}{}] {}/{} {:<24.24}", std::string(filled, '#'),
                             std::string(width - filled, ' '), done_, total_, id)
              << std::flush;
  }
  void clear() {
    if (tty_) std::cerr << "\r" << std::string(70, ' ') << "\r" << std::flush;
  }

 private:
  size_t total_, done_ = 0;
  bool tty_;
};

}  // namespace mmaemu::cli
