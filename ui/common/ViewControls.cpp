#include "ui/common/ViewControls.h"

#include <QKeySequence>
#include <QShortcut>

namespace ptescope::ui {

namespace {

// As wide as its longest entry when there is room, but it accepts the width of
// a dozen characters: a long link name must not make the window wider than the
// screen (the popup still shows every entry whole).
class FittedComboBox : public QComboBox {
 public:
  QSize minimumSizeHint() const override {
    QSize size = QComboBox::minimumSizeHint();
    const int narrow = fontMetrics().averageCharWidth() * 12 + 40;
    size.setWidth(qMin(size.width(), narrow));
    return size;
  }
};

}  // namespace

QComboBox* fittedComboBox(const QString& objectName) {
  auto* box = new FittedComboBox;
  box->setObjectName(objectName);
  box->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  return box;
}

void addZoomShortcuts(QWidget* view, std::function<void()> zoomIn, std::function<void()> zoomOut,
                      std::function<void()> fit) {
  const std::pair<QKeySequence, std::function<void()>> keys[] = {{QKeySequence(Qt::CTRL | Qt::Key_Equal), zoomIn},
                                                                 {QKeySequence(Qt::CTRL | Qt::Key_Plus), zoomIn},
                                                                 {QKeySequence(Qt::CTRL | Qt::Key_Minus), zoomOut},
                                                                 {QKeySequence(Qt::CTRL | Qt::Key_0), fit}};
  for (const auto& [sequence, slot] : keys) {
    auto* shortcut = new QShortcut(sequence, view);
    shortcut->setContext(Qt::WidgetWithChildrenShortcut);
    QObject::connect(shortcut, &QShortcut::activated, view, slot);
  }
}

}  // namespace ptescope::ui
