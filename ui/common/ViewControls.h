// Controls that the views build the same way: a combo box as wide as its
// longest entry, and the zoom keys of a zoomable view.
#pragma once

#include <QComboBox>
#include <QLabel>
#include <QString>
#include <QToolButton>
#include <QWidget>

#include <functional>

namespace ptescope::ui {

// An empty combo box named `objectName` (tests find it by that name) that
// grows to fit its entries when there is room, and can be made narrower.
QComboBox* fittedComboBox(const QString& objectName);

// Ctrl+= and Ctrl++ zoom in, Ctrl+- zooms out, Ctrl+0 fits. Only while
// `view` or a child has focus: the graph and the timeline share the keys.
void addZoomShortcuts(QWidget* view, std::function<void()> zoomIn, std::function<void()> zoomOut,
                      std::function<void()> fit);

// The zoom buttons of a zoomable view (the Timeline, the Memory plan): −, +
// and Fit, named by what they do, and a label for the level, named `levelName`
// (its value in the text). Their object names are `prefix` + "ZoomOut",
// "ZoomIn", "Fit" and "Zoom". The caller lays them out and connects them.
struct ZoomControls {
  QLabel* level = nullptr;
  QToolButton* zoomOut = nullptr;
  QToolButton* zoomIn = nullptr;
  QToolButton* fit = nullptr;
};
ZoomControls makeZoomControls(const QString& prefix, const QString& levelName, const QString& fitTip);

}  // namespace ptescope::ui
