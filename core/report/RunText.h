// What `ptescope-cli run` prints: the method and runtime, each output's
// dtype, shape, min/max/mean and first values, and the instructions that
// were not executed with their reasons. The GUI's Outputs panel formats the
// same values with valueSummary and formatNumber.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "exec/RunOnce.h"

namespace ptescope::report {

std::string runText(const exec::RunOnceResult& result, const std::string& programName);
// The same as `run --json` prints it: program, method, runtime, emulated,
// instructions, not_executed [{instruction, label, reason}], outputs
// [{position, value, type, dtype, sizes, count, nan_count, min, max, mean,
// first_values, bit_exact, bit_exact_text, not_proven [{instruction,
// kernel, dtypes, why}]}] (tensors have dtype .. first_values; a literal
// has type only).
nlohmann::json runJson(const exec::RunOnceResult& result, const std::string& programName);
// "float32[2, 3]" for a tensor output, "Int 4" / "Double 0.5" / "Bool true" for
// the others.
std::string outputDescription(const exec::RunOutput& output);
// Its two parts: the type ("float32[2, 3]", "Bool") and a literal's value
// ("true", "4", a quoted string with its escapes; "" for a tensor).
std::string outputTypeText(const exec::RunOutput& output);
std::string literalText(const exec::RunOutput& output);
// "min -1.25  max 3  mean 0.5" (and "NaN 2" when some are NaN), or "" when
// the output has no readable elements.
std::string statsText(const exec::RunOutput& output);
// Up to `count` first elements: "1, 2.5, -3, …".
std::string firstValuesText(const exec::RunOutput& output, size_t count = 8);
// A number in the shortest form that reads back as the same float32 (%.7g).
std::string formatNumber(double value);

}  // namespace ptescope::report
