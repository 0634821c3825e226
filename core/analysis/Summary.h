// Counts and facts about a loaded program, shared by `info`, the GUI's status
// bar and the program tree.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "program/Program.h"

namespace ptescope::analysis {

inline constexpr const char* kH2dCopyOperator = "et_copy::_h2d_copy";
inline constexpr const char* kD2hCopyOperator = "et_copy::_d2h_copy";

struct MethodSummary {
  std::string name;
  size_t values = 0;
  std::map<std::string, size_t> values_by_kind;        // "Tensor" -> n
  size_t instructions = 0;
  std::map<std::string, size_t> instructions_by_kind;  // "KernelCall" -> n
  size_t kernel_calls = 0;
  size_t delegate_calls = 0;
  size_t h2d_copies = 0;
  size_t d2h_copies = 0;
  size_t constant_tensors = 0;
  size_t planned_tensors = 0;
  std::map<std::string, size_t> tensors_by_device;  // "cpu:0" -> n
  std::vector<int32_t> inputs;
  std::vector<int32_t> outputs;
  std::vector<std::string> operators;  // qualified names
  std::vector<int64_t> non_const_buffer_sizes;
  std::vector<program::NonConstBufferDevice> non_const_buffer_device;
};

MethodSummary summarizeMethod(const program::Method& method);

// Whether an operator is one of the et_copy transfer ops (any overload).
bool isH2dCopy(const program::Operator& op);
bool isD2hCopy(const program::Operator& op);

}  // namespace ptescope::analysis
