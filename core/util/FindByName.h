// The first element of a catalogue whose `name` member equals `name`.
#pragma once

#include <string_view>
#include <vector>

namespace ptescope {

template <class T>
const T* findByName(const std::vector<T>& list, std::string_view name) {
  for (const auto& item : list)
    if (item.name == name) return &item;
  return nullptr;
}

}  // namespace ptescope
