// Why an edit of a method's device options changed nothing: upstream's passes
// act only where the program gives them something to act on (skip_h2d only
// skips copies of method inputs that a device delegate reads directly), so an
// option turned on can leave a method as it was. These sentences say so,
// where the user made the edit (the app's diff banner and Changes panel,
// `propagate`'s report).
#pragma once

#include <string>
#include <vector>

#include "passes/DevicePasses.h"
#include "program/Program.h"

namespace ptescope::passes {

// One sentence per option that differs between `before` and `after`, saying
// why it changes nothing in `method` (as loaded, with its copies). Empty when
// no option differs.
std::vector<std::string> explainUnchangedOptions(const program::Method& method, const DeviceOptions& before,
                                                 const DeviceOptions& after);

}  // namespace ptescope::passes
