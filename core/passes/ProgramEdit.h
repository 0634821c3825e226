// Editing primitives on a method that keep every index in the program right:
// value references everywhere they occur, jump destinations, per-instruction
// stack traces, operator indices. The passes are built from these.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "program/Program.h"

namespace ptescope::passes {

// Where an instruction is: chain and position in that chain.
struct InstructionPosition {
  uint32_t chain = 0;
  uint32_t index = 0;
};

// Calls `visit` on every value reference of the method (method inputs and
// outputs, chain inputs and outputs, instruction arguments, list items)
// with a mutable reference, so it can be renumbered.
void forEachValueReference(program::Method& method, const std::function<void(int32_t&)>& visit);

// Renumbers values after removing those with keep[v] == false; every
// reference to a kept value is rewritten. Returns old index -> new index
// (-1 for removed values). References to removed values must not exist.
std::vector<int32_t> compactValues(program::Method& method, const std::vector<bool>& keep);

// Removes instructions (given as flat indices over all chains, any order):
// later jump destinations shift down, stack traces lose the same entries.
void removeInstructions(program::Method& method, std::vector<size_t> flatIndices);

// Inserts an instruction before `position` (index == chain size appends).
// Jump destinations at or after the position shift up; a stack trace, when
// the chain has one, gets an empty frame list for the new instruction.
void insertInstruction(program::Method& method, InstructionPosition position, program::Instruction instruction);

// Returns the index of operator (name, overload), appending it if absent.
int32_t ensureOperator(program::Method& method, const std::string& name, const std::string& overload);

// Drops operators no KernelCall refers to and renumbers op_index.
void dropUnusedOperators(program::Method& method);

// Appends a value and returns its index.
int32_t appendValue(program::Method& method, program::Value value);

// Position of flat instruction index `flat`.
std::optional<InstructionPosition> positionOf(const program::Method& method, size_t flat);

}  // namespace ptescope::passes
