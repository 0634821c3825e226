// The value indices an instruction names outside its argument lists' items:
// KernelCall/DelegateCall args, MoveCall's two values, JumpFalseCall's
// condition, FreeCall's value. One walk for readers (const) and editors.
#pragma once

#include <type_traits>
#include <variant>

#include "program/Program.h"

namespace ptescope::program {

// Calls visit(index) for each value index `data` names, in argument order;
// with a non-const InstructionData the index is passed by reference.
template <typename Data, typename Visit>
  requires std::is_same_v<std::remove_const_t<Data>, InstructionData>
void forEachOperand(Data& data, Visit&& visit) {
  std::visit(
      [&](auto& ins) {
        using T = std::remove_cvref_t<decltype(ins)>;
        if constexpr (std::is_same_v<T, KernelCall> || std::is_same_v<T, DelegateCall>) {
          if (ins.args)
            for (auto& a : *ins.args) visit(a);
        } else if constexpr (std::is_same_v<T, MoveCall>) {
          visit(ins.move_from);
          visit(ins.move_to);
        } else if constexpr (std::is_same_v<T, JumpFalseCall>) {
          visit(ins.cond_value_index);
        } else if constexpr (std::is_same_v<T, FreeCall>) {
          visit(ins.value_index);
        }
      },
      data);
}

}  // namespace ptescope::program
