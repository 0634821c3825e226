// The diff view's marks (layout::MethodChanges) from the pipeline's report
// of one method: what the edits changed against the program as loaded.
#pragma once

#include "analysis/Dataflow.h"
#include "layout/DiffMarks.h"
#include "passes/Pipeline.h"
#include "program/Program.h"

namespace ptescope::report {

// `loaded` is the method as loaded, `current` the edited one and `flow` its
// def/use facts. Copy sources and retagged values in the report are in the
// stripped numbering, which is the edited method's numbering for every
// value that is not a copy output.
layout::MethodChanges methodChanges(const passes::MethodReport& report, const program::Method& loaded,
                                    const program::Method& current, const analysis::Dataflow& flow);

// "h2d %3 cpu → cuda:0, 1.0 KiB"
std::string copyChangeText(const passes::CopyRecord& copy);

}  // namespace ptescope::report
