// A note in the middle of an item view that has no rows, saying why (no
// findings, no value matching the filter): an empty table never reads as a
// failure to load. Screen readers get the note as the view's accessible
// description, since a table's accessible children are only its cells.
#pragma once

#include <functional>

#include <QString>

class QAbstractItemView;
class QLabel;

namespace ptescope::ui {

// Puts the note's label in `view`'s viewport; `objectName` names it for
// tests. Call setEmptyNote to update it.
QLabel* attachEmptyNote(QAbstractItemView* view, const QString& objectName);
// Shows `text` in the middle of `view` (attachEmptyNote first) when `empty`,
// and describes the view with it; hides it otherwise.
void setEmptyNote(QAbstractItemView* view, bool empty, const QString& text);
// Calls `sayWhy` now and whenever rows of `view`'s model come or go (reset,
// inserted, removed, filtered), for it to call setEmptyNote.
void followRows(QAbstractItemView* view, const std::function<void()>& sayWhy);

}  // namespace ptescope::ui
