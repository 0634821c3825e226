#include "ui/common/ProgressTicker.h"

#include <QTimer>

#include "exec/Executor.h"
#include "ui/common/Format.h"

namespace ptescope::ui {

QString instructionProgressText(const exec::RunProgress* progress) {
  const size_t step = progress != nullptr ? progress->step.load(std::memory_order_relaxed) : 0;
  if (step == 0) return {};
  return QObject::tr("instruction %1 of %2")
      .arg(num(qint64(step)), num(qint64(progress->instructions.load(std::memory_order_relaxed))));
}

ProgressTicker::ProgressTicker(QObject* parent, std::function<void(qint64 seconds)> tick)
    : QObject(parent), timer_(new QTimer(this)), tick_(std::move(tick)) {
  timer_->setInterval(500);
  connect(timer_, &QTimer::timeout, this, [this] { tick_(seconds()); });
}

void ProgressTicker::start() {
  clock_.start();
  timer_->start();
  tick_(0);
}

void ProgressTicker::stop() { timer_->stop(); }

bool ProgressTicker::isActive() const { return timer_->isActive(); }

qint64 ProgressTicker::seconds() const { return clock_.isValid() ? clock_.elapsed() / 1000 : 0; }

}  // namespace ptescope::ui
