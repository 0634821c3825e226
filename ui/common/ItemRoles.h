#pragma once

#include <Qt>

namespace ptescope::ui {

// Custom roles shared by the table models.
enum ItemRole : int {
  SortRole = Qt::UserRole + 1,        // numbers sort as numbers
  DeviceRole = Qt::UserRole + 2,      // "cpu:0", "cuda:0"
  ValueIndexRole = Qt::UserRole + 3,  // int: value index of the row, -1 if none
  InstructionRole = Qt::UserRole + 4, // qulonglong: flat instruction index, or -1
  NameRole = Qt::UserRole + 5,        // QString: a tensor's name in the program (fully qualified), or empty
};

}  // namespace ptescope::ui
