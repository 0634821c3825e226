// Structural checks on a program model: every index that the runtime follows
// at load or run time must point at something of the right kind.
#pragma once

#include <string>
#include <vector>

#include "program/Program.h"

namespace ptescope::program {

// Every problem found, each a sentence naming the method, instruction or
// value. Empty when the program is structurally sound.
std::vector<std::string> validateProgram(const Program& program);

}  // namespace ptescope::program
