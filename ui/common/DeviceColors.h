// One colour per device, shared by every view (graph, memory plan, tables).
#pragma once

#include <QColor>
#include <QString>

namespace ptescope::ui {

// "cpu:0" grey-blue; cuda:N greens/oranges/purples by index.
QColor deviceColor(const QString& device);

}  // namespace ptescope::ui
