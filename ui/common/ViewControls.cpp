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

ZoomControls makeZoomControls(const QString& prefix, const QString& levelName, const QString& fitTip) {
  auto button = [&prefix](const QString& text, const QString& tip, const QString& name) {
    auto* b = new QToolButton;
    b->setText(text);
    b->setToolTip(tip);
    // Named by what it does, not by its glyph ("+" reads as "plus").
    b->setAccessibleName(tip.section(QStringLiteral(" ("), 0, 0));
    b->setObjectName(prefix + name);
    b->setAutoRaise(true);
    return b;
  };
  ZoomControls controls;
  controls.zoomOut = button(QString(QChar(0x2212)), QObject::tr("Zoom out (Ctrl+\u2212)"), QStringLiteral("ZoomOut"));
  controls.zoomIn = button(QStringLiteral("+"), QObject::tr("Zoom in (Ctrl+=, Ctrl+wheel)"), QStringLiteral("ZoomIn"));
  controls.fit = button(QObject::tr("Fit"), fitTip, QStringLiteral("Fit"));
  controls.level = new QLabel;
  controls.level->setObjectName(prefix + QStringLiteral("Zoom"));
  // Named by its role; the value in the text (a screen reader read the bare
  // "100%").
  controls.level->setAccessibleName(levelName);
  controls.level->setMinimumWidth(controls.level->fontMetrics().horizontalAdvance(QStringLiteral("100000%")));
  controls.level->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
  return controls;
}

}  // namespace ptescope::ui
