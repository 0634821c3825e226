// The refusals of ExecuTorch's runtime that ptescope's executor reproduces:
// where the runtime (upstream commit cff6f4dd) returns an error instead of
// running, the executor stops with the same reason, the runtime's message,
// and the lint rule that predicts it (analysis/Diagnostics, PTS0xx). This is
// the one list of them; README.md "Runtime checks" documents it.
//
// A refusal reads, as one line:
//   method 'forward' input 0 (%0 float32[2, 2]): the runtime refuses:
//   Method::set_input fails with NotSupported: "Planned-buffer copy needs host
//   memory on both sides: dst device 1, src device 0" (runtime check RT001
//   planned-input-on-device; predicted by lint PTS001)
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptescope::exec {

struct RuntimeCheck {
  std::string_view id;         // "RT001"
  std::string_view name;       // "planned-input-on-device"
  std::string_view phase;      // "load", "set_input", "execute"
  std::string_view refusal;    // what the runtime does: "Method::set_input fails with NotSupported"
  std::string_view message;    // the runtime's log message, printf fields filled by the caller
  std::string_view lint_rule;  // "PTS001", or empty when no rule predicts it
  std::string_view upstream;   // where in upstream's source
  std::string_view when;       // the condition, in words
};

// Every check, in id order.
const std::vector<RuntimeCheck>& runtimeChecks();
// The check with this id; aborts on an unknown id (ids are compile-time facts).
const RuntimeCheck& runtimeCheck(std::string_view id);

// The one-line refusal: "<where>: the runtime refuses: <refusal>: \"<message>\"
// (runtime check <id> <name>; predicted by lint <rule>)". `message` is the
// runtime's message with its fields filled in.
std::string refusal(const RuntimeCheck& check, std::string_view where, std::string_view message);

// Arguments upstream's schema gives a portable-library operator (every
// argument, outs included; kernels/portable/functions.yaml at cff6f4dd,
// counted from the kernels' C++ signatures). The generated unboxing of that
// library refuses a call with any other count than this + 1 (the return
// slot): check RT004. Empty for operators outside the portable library.
std::optional<size_t> portableSchemaArgCount(std::string_view op);

}  // namespace ptescope::exec
