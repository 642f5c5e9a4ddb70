#include <algorithm>
#include <cctype>
#include <regex>

#include "mmaemu/gpu_family.hpp"

namespace mmaemu {

const std::vector<GpuFamilyRow>& gpu_family_table() {
  // Most specific patterns first: "A100" must not fall to "A10", "GH200" not to "H200".
  static const std::vector<GpuFamilyRow> table = {
      {R"(v100|titan v\b)", "volta", "7.0", "V100, Titan V"},
      {R"(t4\b|rtx 20[0-9]{2}|quadro rtx|titan rtx)", "turing", "7.5", "T4, RTX 2080"},
      {R"(a100|a800|a30\b|a40\b|a10g?\b|a16\b|a2\b|rtx 30[0-9]{2}|rtx a[0-9]{4})", "ampere",
       "8.0/8.6", "A100, A30, A10, A2, A40, RTX 3090, RTX A6000"},
      {R"(rtx 40[0-9]{2}|l4\b|l40s?\b|l20\b|rtx [0-9]{4} ada|ada\b)", "ada", "8.9",
       "RTX 4090, L4, L40, L40S, RTX 1000 Ada, RTX 6000 Ada"},
      {R"(gh200|h100|h200|h800|h20\b)", "hopper", "9.0", "H100, H200, H800, H20, GH200"},
      {R"(gb200|gb300|b100|b200|b300)", "blackwell", "10.0", "B100, B200, B300, GB200"},
      {R"(rtx 50[0-9]{2}|rtx pro [0-9]{4})", "blackwell_rtx", "12.0", "RTX 5090, RTX PRO 6000"},
  };
  return table;
}

std::string normalise_gpu_name(std::string_view product_name) {
  std::string s(product_name);
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  for (const char* word : {"nvidia ", "tesla ", "geforce "}) {
    for (size_t pos; (pos = s.find(word)) != std::string::npos;)
      s.erase(pos, std::string(word).size());
  }
  while (!s.empty() && s.front() == ' ') s.erase(s.begin());
  return s;
}

std::optional<std::string> architecture_of_gpu(std::string_view product_name) {
  const std::string name = normalise_gpu_name(product_name);
  for (const auto& row : gpu_family_table()) {
    const std::regex re(std::string("^(") + std::string(row.pattern) + ")");
    if (std::regex_search(name, re)) return std::string(row.architecture);
  }
  return std::nullopt;
}

}  // namespace mmaemu
